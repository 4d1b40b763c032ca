import type { InputHTMLAttributes, Ref } from 'react';
import { useId } from 'react';
import { FieldErrors } from './field-errors.tsx';

export function TextField({
  label,
  errors = [],
  ref,
  ...input
}: InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  errors?: string[];
  ref?: Ref<HTMLInputElement>;
}) {
  const id = useId();
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        ref={ref}
        id={id}
        aria-invalid={errors.length > 0 || undefined}
        aria-describedby={errors.length > 0 ? errorId : undefined}
        {...input}
      />
      <FieldErrors id={errorId} errors={errors} />
    </div>
  );
}
