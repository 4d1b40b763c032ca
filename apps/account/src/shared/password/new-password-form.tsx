import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { FormErrors } from '../ui/form-errors.tsx';
import { TextField } from '../ui/text-field.tsx';
import { canSubmitPassword, checkPassword } from './password-rules.ts';

/** Password + confirmation with the live checklist of the password rules. */
export function NewPasswordForm({
  changing = false,
  autoFocus = false,
  submitLabel = copy.common.continue,
  busy = false,
  errors = [],
  fieldErrors = [],
  onSubmit,
}: {
  changing?: boolean;
  /** Focus the first input on mount (a form that is the page; not one section of several). */
  autoFocus?: boolean;
  submitLabel?: string;
  busy?: boolean;
  errors?: string[];
  fieldErrors?: string[];
  onSubmit: (password: string) => void | Promise<void>;
}) {
  const [password, setPassword] = useState('');
  const [confirmation, setConfirmation] = useState('');
  const checks = checkPassword(password);
  const ok = canSubmitPassword(password, confirmation);

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    if (ok && !busy) void onSubmit(password);
  }

  const rules: [boolean, string][] = [
    [checks.length, copy.password.ruleLength],
    [checks.digit, copy.password.ruleDigit],
    [checks.special, copy.password.ruleSpecial],
  ];
  return (
    <form onSubmit={handleSubmit} aria-busy={busy}>
      <TextField
        label={copy.password.label}
        type="password"
        name="password"
        autoComplete="new-password"
        required
        autoFocus={autoFocus}
        placeholder={changing ? copy.password.chooseNew : copy.password.create}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
        errors={fieldErrors}
      />
      <ul className="checklist" aria-label={copy.password.rulesLabel}>
        {rules.map(([met, text]) => (
          <li key={text} className={met ? 'ok' : undefined}>
            {text}
          </li>
        ))}
      </ul>
      <TextField
        label={copy.password.confirmLabel}
        type="password"
        name="confirm"
        autoComplete="new-password"
        required
        placeholder={changing ? copy.password.reenterNew : copy.password.reenter}
        value={confirmation}
        onChange={(e) => setConfirmation(e.target.value)}
      />
      <FormErrors messages={errors} />
      <button type="submit" className="button" disabled={!ok || busy}>
        {submitLabel}
      </button>
    </form>
  );
}
