import type { FormEvent, ReactNode } from 'react';
import { useState } from 'react';
import { OTP_LENGTH } from '../../constants.ts';
import { copy } from '../../copy.ts';
import { Card } from '../ui/card.tsx';
import { Checkbox } from '../ui/checkbox.tsx';
import { FormErrors } from '../ui/form-errors.tsx';
import { OtpInput } from '../ui/otp-input.tsx';

export interface TotpSetupFormProps {
  title: string;
  qr?: string;
  secret?: string;
  busy?: boolean;
  errors?: string[];
  onSubmit: (code: string) => void | Promise<void>;
  onSkip?: () => void;
  footer?: ReactNode;
  /** Shown above the guidance, e.g. a step indicator. */
  header?: ReactNode;
}

/**
 * Login step 7 / MFA setup: app guidance, an "installed" checkbox that must be ticked first,
 * the QR code, the manual setup code with a copy control, and the six-digit code.
 */
export function TotpSetupForm({
  title,
  qr,
  secret,
  busy = false,
  errors = [],
  onSubmit,
  onSkip,
  footer,
  header,
}: TotpSetupFormProps) {
  const [installed, setInstalled] = useState(false);
  const [code, setCode] = useState('');
  const [copied, setCopied] = useState(false);

  function submit(value: string) {
    if (!installed || busy || value.length !== OTP_LENGTH) return;
    void Promise.resolve(onSubmit(value)).finally(() => setCode(''));
  }

  function handleSubmit(event: FormEvent) {
    event.preventDefault();
    submit(code);
  }

  async function copySecret() {
    if (!secret) return;
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }

  return (
    <Card title={title} footer={footer}>
      {header}
      <p className="muted">{copy.login.mfaSetup.guidance}</p>
      <form onSubmit={handleSubmit} aria-busy={busy}>
        <Checkbox checked={installed} onChange={setInstalled} required>
          {copy.login.mfaSetup.installedCheckbox}
        </Checkbox>
        <p>{copy.login.mfaSetup.scanQr}</p>
        {qr ? <img className="qr" src={qr} alt={copy.login.mfaSetup.qrAlt} width={200} height={200} /> : null}
        {secret ? (
          <div className="row">
            <p>
              {copy.login.mfaSetup.manualCode}{' '}
              <code className="secret" data-testid="totp-secret">
                {secret}
              </code>
            </p>
            <button type="button" className="icon-button" onClick={() => void copySecret()}>
              {copied ? copy.login.mfaSetup.copied : copy.login.mfaSetup.copy}
            </button>
          </div>
        ) : null}
        <OtpInput
          label={copy.login.mfaSetup.codeLabel}
          value={code}
          onChange={setCode}
          onComplete={submit}
          disabled={busy || !installed}
        />
        <FormErrors messages={errors} />
        <button type="submit" className="button" disabled={!installed || code.length !== OTP_LENGTH || busy}>
          {copy.common.continue}
        </button>
        {onSkip ? (
          <button type="button" className="button secondary" onClick={onSkip}>
            {copy.login.mfaSetup.skip}
          </button>
        ) : null}
      </form>
    </Card>
  );
}
