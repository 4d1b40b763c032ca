import type { ReactNode } from 'react';
import { copy } from '../../copy.ts';
import { initialPagePath, paths } from '../../shared/config/paths.ts';
import { NewPasswordForm } from '../../shared/password/new-password-form.tsx';
import { TermsForm } from '../../shared/terms/terms-form.tsx';
import { TotpSetupForm } from '../../shared/totp/totp-setup-form.tsx';
import { AccountFooter } from '../../shared/ui/account-footer.tsx';
import { withAddress } from '../../shared/ui/address.tsx';
import { Card } from '../../shared/ui/card.tsx';
import { ErrorView } from '../../shared/ui/error-view.tsx';
import { Link } from '../../shared/ui/link.tsx';
import { Progress } from '../../shared/ui/progress.tsx';
import { Stepper } from '../../shared/ui/stepper.tsx';
import type { OnboardingView } from './select-onboarding-step.ts';
import { stepIndex } from './select-onboarding-step.ts';
import type { OnboardingSearch } from './use-onboarding.ts';
import { useOnboarding } from './use-onboarding.ts';

/** The steps' names, read when shown (in the active locale). */
const steps = () => [
  copy.onboarding.steps.email,
  copy.onboarding.steps.password,
  copy.onboarding.steps.mfa,
  copy.onboarding.steps.terms,
];

function Steps({ view }: { view: OnboardingView }) {
  return <Stepper label={copy.onboarding.stepsLabel} steps={steps()} current={stepIndex(view)} />;
}

/** Invitation onboarding screen: Email, Password, 2FA, Terms; Link expired; already logged in. */
export function OnboardingScreen({ search }: { search: OnboardingSearch }) {
  const o = useOnboarding(search);
  const footer: ReactNode = <AccountFooter supportEmail={o.config.supportEmail} />;
  if (o.pageError) return <ErrorView message={o.pageError} mode="retry" />;
  switch (o.view) {
    case 'loading':
      return <Progress label={copy.common.loading} />;
    case 'done':
      return <Progress label={copy.onboarding.finishing} />;
    case 'expired':
      return (
        <Card title={copy.onboarding.linkExpired} footer={footer}>
          <h2 className="subheading">{copy.onboarding.needNewInvitation}</h2>
          <p>{copy.onboarding.contactForInvitation(o.config.accessEmail)}</p>
        </Card>
      );
    case 'already-logged-in':
      return (
        <Card title={withAddress(copy.onboarding.alreadyLoggedIn, o.email)} footer={footer}>
          <p>
            {copy.onboarding.clickPrefix}{' '}
            <Link href={initialPagePath(o.config.initialPage)}>{copy.onboarding.proceedLink}</Link>{' '}
            {copy.onboarding.orPrefix} <a href={paths.logout}>{copy.onboarding.logoutLink}</a>
          </p>
        </Card>
      );
    case 'email':
      return (
        <Card title={copy.onboarding.verifying} footer={footer}>
          <Steps view={o.view} />
          <div className="progress" role="status" aria-live="polite">
            <span className="spinner" aria-hidden="true" />
          </div>
        </Card>
      );
    case 'password':
      return (
        <Card title={copy.onboarding.passwordTitle} footer={footer}>
          <Steps view={o.view} />
          <p className="muted">{copy.onboarding.passwordPrompt}</p>
          <NewPasswordForm
            busy={o.busy || !o.settingsReady}
            errors={o.errors}
            fieldErrors={o.fieldErrors}
            onSubmit={o.submitPassword}
          />
        </Card>
      );
    case 'mfa':
      if (o.totp.status !== 'form') return <Progress label={copy.common.loading} />;
      return (
        <TotpSetupForm
          title={copy.login.mfaSetup.titleOnboarding}
          header={<Steps view={o.view} />}
          qr={o.totp.qr}
          secret={o.totp.secret}
          busy={o.totp.busy}
          errors={o.totp.errors}
          onSubmit={o.totp.submit}
          onSkip={o.skipMfa}
          footer={footer}
        />
      );
    case 'terms':
      return (
        <TermsForm
          title={copy.onboarding.termsTitle}
          header={<Steps view={o.view} />}
          busy={o.busy}
          errors={o.errors}
          onAccept={o.accept}
          footer={footer}
        />
      );
  }
}
