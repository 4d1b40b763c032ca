/** Server messages of a form, announced to assistive technology. */
export function FormErrors({ messages }: { messages: string[] }) {
  return (
    <div className="form-errors" role="alert" aria-live="assertive">
      {messages.map((m) => (
        <p key={m}>{m}</p>
      ))}
    </div>
  );
}
