import { copy } from '../copy.ts';
import { ConsentScreen } from '../features/consent/consent-screen.tsx';
import { useConsent } from '../features/consent/use-consent.ts';
import { getConfig } from '../shared/config/env.ts';
import { TermsForm } from '../shared/terms/terms-form.tsx';
import { AppShell } from '../shared/shell/app-shell.tsx';
import { AccountFooter } from '../shared/ui/account-footer.tsx';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

/**
 * The platform's own applications get no consent screen beyond a progress indicator, except the
 * Terms step ("Final Step") when the user service asks for the terms before the first token; any
 * other application gets the consent screen (Allow or Deny).
 */
function Consent({ search }: { search: { consent_challenge?: string } }) {
  const { error, terms, consent } = useConsent(search);
  if (error) return <ErrorView message={error} mode="login" />;
  if (consent) return <ConsentScreen {...consent} />;
  if (terms) {
    return (
      <TermsForm
        title={copy.callbackOnboarding.finalStep}
        busy={terms.busy}
        errors={terms.errors}
        onAccept={terms.accept}
        footer={<AccountFooter supportEmail={getConfig().supportEmail} />}
      />
    );
  }
  return <Progress label={copy.progress.signingIn} />;
}

/** The consent screen, in the signed-in shell (the person has an identity session here). */
export default function ConsentRoute(props: { search: { consent_challenge?: string } }) {
  return (
    <AppShell>
      <Consent {...props} />
    </AppShell>
  );
}
