import { useEffect } from 'react';
import { copy } from '../../../copy.ts';
import { BackupCodesStep } from '../../../shared/totp/backup-codes-step.tsx';
import { TotpSetupForm } from '../../../shared/totp/totp-setup-form.tsx';
import { useBackupCodes } from '../../../shared/totp/use-backup-codes.ts';
import { useTotpSetup } from '../../../shared/totp/use-totp-setup.ts';
import { Card } from '../../../shared/ui/card.tsx';
import { ErrorView } from '../../../shared/ui/error-view.tsx';
import { Progress } from '../../../shared/ui/progress.tsx';

/** Login step 7 for a session without a second factor past its setup deadline: "Reset your 2FA". */
export function MfaSetupStep({
  profileFlow,
  onDone,
  onSkip,
}: {
  /** The `profileFlow` query parameter: a settings flow already made for this set-up is used, not a new one. */
  profileFlow?: string;
  onDone: () => void;
  onSkip?: () => void;
}) {
  const totp = useTotpSetup({ profileFlow });
  // After the set-up, the backup codes in a step of their own, then on.
  const backup = useBackupCodes(totp.status === 'completed');
  const finished =
    totp.status === 'unauthorized' || (totp.status === 'completed' && backup.status === 'done');
  useEffect(() => {
    if (finished) onDone();
  }, [finished, onDone]);

  if (totp.status === 'completed' && backup.status === 'show')
    return <BackupCodesStep codes={backup.codes} busy={backup.busy} onContinue={backup.confirm} />;
  switch (totp.status) {
    case 'loading':
    case 'completed':
    case 'unauthorized':
      return <Progress label={copy.common.loading} />;
    case 'error':
      return <ErrorView message={totp.pageError ?? undefined} mode="retry" />;
    case 'update':
      return (
        <Card title={copy.login.mfaSetup.titleUpdate}>
          <p>{copy.login.mfaSetup.updateText}</p>
          <button type="button" className="button" disabled={totp.busy} onClick={() => void totp.unlink()}>
            {copy.common.continue}
          </button>
        </Card>
      );
    case 'form':
      return (
        <TotpSetupForm
          title={copy.login.mfaSetup.titleReset}
          qr={totp.qr}
          secret={totp.secret}
          busy={totp.busy}
          errors={totp.errors}
          onSubmit={totp.submit}
          onSkip={onSkip}
        />
      );
  }
}
