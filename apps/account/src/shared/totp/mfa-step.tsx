import type { FormEvent } from 'react';
import { useState } from 'react';
import { OTP_LENGTH } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { Card } from '../ui/card.tsx';
import { FormErrors } from '../ui/form-errors.tsx';
import { OtpInput } from '../ui/otp-input.tsx';

export interface MfaStepProps {
  supportEmail: string;
  busy?: boolean;
  errors?: string[];
  onSubmit: (code: string) => void | Promise<void>;
}

/** The second-factor step (login, and recovery for a user with 2FA): "Enter your 2FA code", six-digit input, a contact for users without the app. */
export function MfaStep({ supportEmail, busy = false, errors = [], onSubmit }: MfaStepProps) {
  const [code, setCode] = useState('');

  function submit(value: string) {
    if (busy || value.length !== OTP_LENGTH) return;
    void Promise.resolve(onSubmit(value)).finally(() => setCode(''));
  }

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    submit(code);
  }

  return (
    <Card title={copy.login.mfa.title}>
      <p className="muted">{copy.login.mfa.prompt}</p>
      <form onSubmit={handleSubmit} aria-busy={busy}>
        <OtpInput
          label={copy.login.mfa.codeLabel}
          value={code}
          onChange={setCode}
          onComplete={submit}
          disabled={busy}
        />
        <FormErrors messages={errors} />
        <button type="submit" className="button" disabled={code.length !== OTP_LENGTH || busy}>
          {copy.common.continue}
        </button>
      </form>
      <p className="notice">
        {copy.login.mfa.noAppPrefix} <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
      </p>
    </Card>
  );
}
