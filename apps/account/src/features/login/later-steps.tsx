import { MfaStep } from '../../shared/totp/mfa-step.tsx';
import { EmailConfirmationStep } from './steps/info-steps.tsx';
import { M365UnavailableStep } from './steps/m365-unavailable-step.tsx';
import { MfaSetupStep } from './steps/mfa-setup-step.tsx';
import { PasswordStep } from './steps/password-step.tsx';
import { SsoStep } from './steps/sso-step.tsx';
import { selectSignUpLink } from './select-sign-up-link.ts';
import type { LoginStep } from './select-login-step.ts';
import type { useLogin } from './use-login.ts';

// The login steps after the Email step, in their own chunk: the login route's first screen does not
// wait for them, and the login screen loads them as soon as it has started (login-screen.tsx).

export default function LaterStep({
  login,
  step,
}: {
  login: ReturnType<typeof useLogin>;
  step: Exclude<LoginStep, 'email'>;
}) {
  switch (step) {
    case 'password':
    case 'password-confirmation':
      return (
        <PasswordStep
          email={login.email}
          busy={login.busy}
          errors={login.formErrors}
          fieldErrors={login.fieldErrors}
          variant={step === 'password' ? 'password' : 'confirmation'}
          onBack={step === 'password' ? login.back : undefined}
          onSubmit={login.submitPassword}
          signUp={selectSignUpLink({ step, emailResult: login.emailResult })}
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
