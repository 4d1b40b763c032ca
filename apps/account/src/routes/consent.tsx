import { copy } from '../copy.ts';
import { useConsent } from '../features/consent/use-consent.ts';
import { getConfig } from '../shared/config/env.ts';
import { TermsForm } from '../shared/terms/terms-form.tsx';
import { AccountFooter } from '../shared/ui/account-footer.tsx';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

/**
 * Consent has no UI beyond a progress indicator (content not shown), except the Terms step ("Final
 * Step") when the user service asks for the terms before the first token.
 */
export default function ConsentRoute({ search }: { search: { consent_challenge?: string } }) {
  const { error, terms } = useConsent(search);
  if (error) return <ErrorView message={error} mode="login" />;
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
