import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { FormErrors } from './form-errors.tsx';
import { TextField } from './text-field.tsx';

export interface CodeFormProps {
  label: string;
  placeholder: string;
  initialCode?: string;
  busy: boolean;
  errors: string[];
  onSubmit: (code: string) => void;
}

/** An emailed one-time code (recovery, verification): one numeric field, the server's messages, Continue. */
export function CodeForm({ label, placeholder, initialCode = '', busy, errors, onSubmit }: CodeFormProps) {
  const [code, setCode] = useState(initialCode);
  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (code.trim()) onSubmit(code.trim());
  }
  return (
    <form onSubmit={handleSubmit} aria-busy={busy}>
      <TextField
        label={label}
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        placeholder={placeholder}
        required
        value={code}
        onChange={(e) => setCode(e.target.value)}
      />
      <FormErrors messages={errors} />
      <button type="submit" className="button" disabled={code.trim() === '' || busy}>
        {copy.common.continue}
      </button>
    </form>
  );
}
