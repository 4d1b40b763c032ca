import { useEffect } from 'react';
import { copy } from '../../copy.ts';
import { getConfig } from '../../shared/config/env.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { navigate } from '../../shared/navigation/history.ts';
import { BackupCodesStep } from '../../shared/totp/backup-codes-step.tsx';
import { TotpSetupForm } from '../../shared/totp/totp-setup-form.tsx';
import { useBackupCodes } from '../../shared/totp/use-backup-codes.ts';
import { useTotpSetup } from '../../shared/totp/use-totp-setup.ts';
import { AccountFooter } from '../../shared/ui/account-footer.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { hasSecondFactor, mfaDeadlineInFuture, signedInBySso } from '../../shared/session/session-facts.ts';
import { useSession } from '../../shared/session/use-session.ts';

/**
 * MFA setup screen: no session → login; SSO users → "SSO users cannot set up MFA"; otherwise
 * the 2FA setup form, then the "2FA" success view with a return button and the footer.
 */
export function MfaSetupScreen({ profileFlow }: { profileFlow?: string }) {
  const config = getConfig();
  const session = useSession();
  const facts = session.facts;
  const sso = facts ? signedInBySso(facts) : false;
  const eligible = session.state === 'present' && !sso;
  // An aal1 session of a user who has TOTP: the settings flow answers 403 with the aal2 login target.
  const totp = useTotpSetup({ profileFlow, enabled: eligible || session.state === 'requires-mfa' });
  // After the set-up, before the completion screen: the backup codes, in a step of their own.
  const backup = useBackupCodes(totp.status === 'completed');

  useEffect(() => {
    if (session.state === 'none' || totp.status === 'unauthorized') navigate(paths.login, { replace: true });
  }, [session.state, totp.status]);

  const footer = <AccountFooter supportEmail={config.supportEmail} />;
  if (session.state === 'error') {
    return (
      <ErrorView message={copy.errors.loadingSession(session.error ?? copy.errors.unknown)} mode="retry" />
    );
  }
  if (session.state === 'present' && sso)
    return <ErrorView message={copy.errors.ssoCannotSetUpMfa} mode="login" />;
  if (totp.status === 'error') return <ErrorView message={totp.pageError ?? undefined} mode="retry" />;
  if (totp.status === 'completed' && backup.status !== 'done') {
    if (backup.status === 'loading') return <Progress label={copy.common.loading} />;
    return <BackupCodesStep codes={backup.codes} busy={backup.busy} onContinue={backup.confirm} />;
  }
  if (totp.status === 'completed') {
    return (
      <Card title={copy.mfaSetupScreen.successHeading} footer={footer}>
        <p>{copy.mfaSetupScreen.success(config.appName)}</p>
        <button
          type="button"
          className="button"
          onClick={() => navigate(initialPagePath(config.initialPage), { replace: true })}
        >
          {copy.mfaSetupScreen.returnTo(config.appName)}
        </button>
      </Card>
    );
  }
  if (totp.status === 'update') {
    return (
      <Card title={copy.login.mfaSetup.titleUpdate} footer={footer}>
        <p>{copy.login.mfaSetup.updateText}</p>
        <button type="button" className="button" disabled={totp.busy} onClick={() => void totp.unlink()}>
          {copy.common.continue}
        </button>
      </Card>
    );
  }
  if (totp.status !== 'form' || !facts) return <Progress label={copy.common.loading} />;
  const canSkip = mfaDeadlineInFuture(facts, session.checkedAt);
  return (
    <TotpSetupForm
      title={hasSecondFactor(facts) ? copy.login.mfaSetup.titleUpdate : copy.login.mfaSetup.titleOnboarding}
      qr={totp.qr}
      secret={totp.secret}
      busy={totp.busy}
      errors={totp.errors}
      onSubmit={totp.submit}
      onSkip={canSkip ? () => navigate(initialPagePath(config.initialPage), { replace: true }) : undefined}
      footer={footer}
    />
  );
}
