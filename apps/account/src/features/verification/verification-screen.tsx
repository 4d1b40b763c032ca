import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { Card } from '../../shared/ui/card.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import type { VerificationSearch } from './use-verification.ts';
import { useVerification } from './use-verification.ts';

/** SPEC §2 Email verification screen. */
export function VerificationScreen({ search }: { search: VerificationSearch }) {
  const v = useVerification(search);
  const [code, setCode] = useState(v.initialCode);
  const [email, setEmail] = useState('');
  if (v.loading) return <Progress label={copy.common.loading} />;

  function handleCode(event: FormEvent) {
    event.preventDefault();
    if (code.trim()) void v.submitCode(code.trim());
  }
  function handleEmail(event: FormEvent) {
    event.preventDefault();
    if (email.trim()) void v.sendCode(email.trim());
  }

  return (
    <Card title={copy.verification.heading}>
      {v.needsEmail ? (
        <form onSubmit={handleEmail} aria-busy={v.busy}>
          <TextField
            label={copy.login.email.emailLabel}
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
          {v.errors.length > 0 ? <FormErrors messages={v.errors} /> : null}
          <button type="submit" className="button" disabled={email.trim() === '' || v.busy}>
            {copy.common.continue}
          </button>
        </form>
      ) : (
        <>
          <p>{copy.verification.text}</p>
          <form onSubmit={handleCode} aria-busy={v.busy}>
            <TextField
              label={copy.verification.codeLabel}
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              placeholder={copy.verification.placeholder}
              required
              autoFocus
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
            {v.errors.length > 0 ? <FormErrors messages={v.errors} /> : null}
            <button type="submit" className="button" disabled={code.trim() === '' || v.busy}>
              {copy.common.continue}
            </button>
          </form>
        </>
      )}
    </Card>
  );
}
