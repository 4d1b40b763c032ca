import type { FormEvent } from 'react';
import { useState } from 'react';
import { copy } from '../../copy.ts';
import { paths } from '../../shared/config/paths.ts';
import { Card } from '../../shared/ui/card.tsx';
import { FormErrors } from '../../shared/ui/form-errors.tsx';
import { Link } from '../../shared/ui/link.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { TextField } from '../../shared/ui/text-field.tsx';
import { formatUserCode, isCompleteUserCode, type DeviceSearch } from './select-device-step.ts';
import { useDevice } from './use-device.ts';

/** "Connect a device": the code, then which client asks for which access, then the result. */
export function DeviceScreen({ search }: { search: DeviceSearch }) {
  const d = useDevice(search);
  const { step } = d;

  if (step.type === 'fetch-challenge' || step.type === 'login')
    return <Progress label={copy.common.loading} />;
  if (step.type === 'approved') {
    return (
      <Card title={copy.device.approvedHeading}>
        <p role="status">{copy.device.approved}</p>
      </Card>
    );
  }
  if (step.type === 'failed') {
    return (
      <Card title={copy.device.failedHeading}>
        <p role="alert">{copy.device.failed[step.reason]}</p>
        <Link className="button" href={paths.device}>
          {copy.device.startAgain}
        </Link>
      </Card>
    );
  }
  if (step.type === 'consent') {
    if (!d.consent || d.sessionLoading) return <Progress label={copy.common.loading} />;
    return (
      <Card title={copy.device.heading}>
        <p>{copy.device.consentText(d.consent.clientName)}</p>
        <ul aria-label={copy.device.consentText(d.consent.clientName)}>
          {d.consent.requestedScope.map((scope) => (
            <li key={scope}>{copy.device.scopes[scope] ?? scope}</li>
          ))}
        </ul>
        <FormErrors messages={d.errors} />
        <button type="button" className="button" disabled={d.busy} onClick={d.approve}>
          {copy.device.approve}
        </button>
        <button type="button" className="button secondary" disabled={d.busy} onClick={d.deny}>
          {copy.device.deny}
        </button>
      </Card>
    );
  }
  return <CodeEntry initialCode={d.initialCode} busy={d.busy} errors={d.errors} onSubmit={d.submitCode} />;
}

/** One real text field: upper case forced, the hyphen optional, paste and autofill welcome. */
function CodeEntry({
  initialCode,
  busy,
  errors,
  onSubmit,
}: {
  initialCode: string;
  busy: boolean;
  errors: string[];
  onSubmit: (code: string) => Promise<void>;
}) {
  const [code, setCode] = useState(initialCode);
  function handle(event: FormEvent) {
    event.preventDefault();
    if (isCompleteUserCode(code)) void onSubmit(code);
  }
  return (
    <Card title={copy.device.heading}>
      <p>{copy.device.text}</p>
      <form onSubmit={handle} aria-busy={busy}>
        <TextField
          label={copy.device.codeLabel}
          name="user_code"
          autoComplete="one-time-code"
          autoCapitalize="characters"
          spellCheck={false}
          autoFocus
          placeholder={copy.device.placeholder}
          maxLength={9}
          value={code}
          errors={errors}
          onChange={(e) => setCode(formatUserCode(e.target.value))}
        />
        <button type="submit" className="button" disabled={busy || !isCompleteUserCode(code)}>
          {copy.common.continue}
        </button>
      </form>
    </Card>
  );
}
