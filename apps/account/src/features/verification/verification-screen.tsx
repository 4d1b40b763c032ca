import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { Card } from '../../shared/ui/card.tsx';
import { CodeForm } from '../../shared/ui/code-form.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import type { VerificationSearch } from './use-verification.ts';
import { useVerification } from './use-verification.ts';

/** Email verification screen. */
export function VerificationScreen({ search }: { search: VerificationSearch }) {
  const v = useVerification(search);
  const [email, setEmail] = useState('');
  if (v.loading) return <Progress label={copy.common.loading} />;

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
          <FormErrors messages={v.errors} />
          <button type="submit" className="button" disabled={email.trim() === '' || v.busy}>
            {copy.common.continue}
          </button>
        </form>
      ) : (
        <>
          <p>{copy.verification.text}</p>
          <CodeForm
            label={copy.verification.codeLabel}
            placeholder={copy.verification.placeholder}
            initialCode={v.initialCode}
            busy={v.busy}
            errors={v.errors}
            onSubmit={(code) => void v.submitCode(code)}
          />
        </>
      )}
    </Card>
  );
}
