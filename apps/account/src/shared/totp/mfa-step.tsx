import type { FormEvent } from 'react';
import { useState } from 'react';
import { OTP_LENGTH } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { Card } from '../ui/card.tsx';
import { FormErrors } from '../ui/form-errors.tsx';
import { OtpInput } from '../ui/otp-input.tsx';
import { TextField } from '../ui/text-field.tsx';

export interface MfaStepProps {
  supportEmail: string;
  busy?: boolean;
  errors?: string[];
  onSubmit: (code: string) => void | Promise<void>;
  /** Offers "Use a backup code" (login): a backup code goes here instead of `onSubmit`. */
  onBackupCode?: (code: string) => void | Promise<void>;
  /** Offers "Use a security key" (login, for a person with one; not inside the Teams frame). */
  onSecurityKey?: () => void | Promise<void>;
}

/**
 * The second-factor step (login, and recovery for a user with 2FA): "Enter your 2FA code", six-digit
 * input, a contact for users without the app; at login also "Use a backup code", its own text field
 * (backup codes are not six digits).
 */
export function MfaStep({
  supportEmail,
  busy = false,
  errors = [],
  onSubmit,
  onBackupCode,
  onSecurityKey,
}: MfaStepProps) {
  const [code, setCode] = useState('');
  const [backup, setBackup] = useState(false);
  const [backupCode, setBackupCode] = useState('');

  function submit(value: string) {
    if (busy || value.length !== OTP_LENGTH) return;
    void Promise.resolve(onSubmit(value)).finally(() => setCode(''));
  }

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    submit(code);
  }

  function handleBackup(event: FormEvent) {
    event.preventDefault();
    const value = backupCode.trim();
    if (busy || !value || !onBackupCode) return;
    void Promise.resolve(onBackupCode(value)).finally(() => setBackupCode(''));
  }

  const contact = (
    <p className="notice">
      {copy.login.mfa.noAppPrefix} <a href={`mailto:${supportEmail}`}>{supportEmail}</a>.
    </p>
  );

  if (backup && onBackupCode) {
    return (
      <Card title={copy.login.mfa.backupTitle}>
        <p className="muted">{copy.login.mfa.backupPrompt}</p>
        <form onSubmit={handleBackup} aria-busy={busy}>
          <TextField
            label={copy.login.mfa.backupLabel}
            value={backupCode}
            onChange={(e) => setBackupCode(e.target.value)}
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            maxLength={32}
            disabled={busy}
            autoFocus
          />
          <FormErrors messages={errors} />
          <button type="submit" className="button" disabled={!backupCode.trim() || busy}>
            {copy.common.continue}
          </button>
        </form>
        <button type="button" className="button secondary" onClick={() => setBackup(false)}>
          {copy.login.mfa.useAuthenticator}
        </button>
        {contact}
      </Card>
    );
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
      {onSecurityKey && (
        <button
          type="button"
          className="button secondary"
          disabled={busy}
          onClick={() => void onSecurityKey()}
        >
          {copy.passkeys.securityKey}
        </button>
      )}
      {onBackupCode && (
        <button type="button" className="button secondary" onClick={() => setBackup(true)}>
          {copy.login.mfa.useBackupCode}
        </button>
      )}
      {contact}
    </Card>
  );
}
