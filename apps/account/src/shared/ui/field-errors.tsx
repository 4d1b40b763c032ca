/** A field's own messages under the input; `id` is what the input's `aria-describedby` points at. */
export function FieldErrors({ id, errors }: { id: string; errors: string[] }) {
  if (errors.length === 0) return null;
  return (
    <div id={id} className="field-error">
      {errors.map((e) => (
        <p key={e}>{e}</p>
      ))}
    </div>
  );
}
