import type { FormEvent } from 'react';
import { useRef, useState } from 'react';
import { copy } from '../../../copy.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { TextField } from '../../../shared/ui/text-field.tsx';

export interface EmailStepProps {
  initialEmail?: string;
  accessEmail: string;
  busy?: boolean;
  onSubmit: (email: string) => void | Promise<void>;
}

/** SPEC §2 Login step 1: title "Welcome", email prompt, Continue, access contact, terms notice. */
export function EmailStep({ initialEmail = '', accessEmail, busy = false, onSubmit }: EmailStepProps) {
  const [email, setEmail] = useState(initialEmail);
  const [invalid, setInvalid] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    const input = inputRef.current;
    // The browser's email validity check (SPEC §5).
    if (!input || !input.checkValidity()) {
      setInvalid(true);
      input?.focus();
      return;
    }
    setInvalid(false);
    void onSubmit(email.trim());
  }

  return (
    <Card
      title={copy.login.email.title}
      after={
        <aside className="access-block" aria-label={copy.login.email.accessHeading}>
          <strong>{copy.login.email.accessHeading}</strong>{' '}
          <span>
            {copy.login.email.accessContact} <a href={`mailto:${accessEmail}`}>{accessEmail}</a>{' '}
            {copy.login.email.accessSuffix}
          </span>
        </aside>
      }
    >
      <p className="muted">{copy.login.email.prompt}</p>
      <form onSubmit={handleSubmit} noValidate aria-busy={busy}>
        <TextField
          ref={inputRef}
          label={copy.login.email.emailLabel}
          type="email"
          name="email"
          autoComplete="username"
          placeholder={copy.login.email.emailPlaceholder}
          required
          autoFocus
          value={email}
          onChange={(e) => {
            setEmail(e.target.value);
            if (invalid) setInvalid(false);
          }}
          errors={invalid ? [copy.login.email.invalidEmail] : []}
        />
        <button type="submit" className="button" disabled={email.trim() === '' || busy}>
          {copy.common.continue}
        </button>
      </form>
      <p className="notice">
        {copy.login.email.termsNotice}{' '}
        <a href="/terms" target="_blank" rel="noreferrer">
          {copy.login.email.termsOfServiceLink}
        </a>{' '}
        {copy.login.email.termsAnd}{' '}
        <a href="/privacy" target="_blank" rel="noreferrer">
          {copy.login.email.privacyLink}
        </a>
        .
      </p>
    </Card>
  );
}
