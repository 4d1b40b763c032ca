import { copy } from '../../copy.ts';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { EmailStep } from './steps/email-step.tsx';
import { EmailConfirmationStep } from './steps/info-steps.tsx';
import { M365UnavailableStep } from './steps/m365-unavailable-step.tsx';
import { MfaSetupStep } from './steps/mfa-setup-step.tsx';
import { MfaStep } from '../../shared/totp/mfa-step.tsx';
import { PasswordStep } from './steps/password-step.tsx';
import { SsoStep } from './steps/sso-step.tsx';
import { selectSignUpLink } from './select-sign-up-link.ts';
import type { LoginSearch } from './use-login.ts';
import { useLogin } from './use-login.ts';

export function LoginScreen({ search }: { search: LoginSearch }) {
  const login = useLogin(search);
  const { view } = login;
  if (view.kind === 'error') return <ErrorView message={view.message} mode={view.mode} />;
  if (view.kind === 'progress') return <Progress label={copy.progress.signingIn} />;
  switch (view.step) {
    case 'email':
      return (
        <EmailStep
          initialEmail={login.typedEmail}
          accessEmail={login.config.accessEmail}
          busy={login.busy}
          onSubmit={login.submitEmail}
          passkey={login.passkey}
        />
      );
    case 'password':
    case 'password-confirmation':
      return (
        <PasswordStep
          email={login.email}
          busy={login.busy}
          errors={login.formErrors}
          fieldErrors={login.fieldErrors}
          variant={view.step === 'password' ? 'password' : 'confirmation'}
          onBack={view.step === 'password' ? login.back : undefined}
          onSubmit={login.submitPassword}
          signUp={selectSignUpLink({ step: view.step, emailResult: login.emailResult })}
          passkey={login.confirmationPasskey}
        />
      );
    case 'sso':
      return (
        <SsoStep
          view={login.ssoView}
          busy={login.busy}
          popupStatus={login.ssoPopupStatus}
          supportEmail={login.config.supportEmail}
          onRedirect={() => void login.redirectToSso()}
          onTryAgain={login.tryAgain}
          onUseAnotherEmail={login.anotherEmail}
          onUsePassword={login.choosePassword}
        />
      );
    case 'email-confirmation':
      return <EmailConfirmationStep email={login.email} />;
    case 'mfa':
      return (
        <MfaStep
          supportEmail={login.config.supportEmail}
          busy={login.busy}
          errors={login.formErrors}
          onSubmit={login.submitTotp}
          onBackupCode={login.submitBackupCode}
          onSecurityKey={login.securityKey}
        />
      );
    case 'mfa-setup':
      return <MfaSetupStep profileFlow={login.profileFlow} onDone={login.mfaSetupDone} />;
    case 'm365-unavailable':
      return (
        <M365UnavailableStep
          email={login.email}
          appName={login.config.appName}
          alternative={login.m365Alternative}
          onUseAnotherEmail={login.back}
        />
      );
  }
}
