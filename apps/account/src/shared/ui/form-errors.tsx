/** Server messages of a form, announced to assistive technology; nothing when there are none. */
export function FormErrors({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <div className="form-errors" role="alert" aria-live="assertive">
      {messages.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}
