import { copy } from '../copy.ts';
import { useConsent } from '../features/consent/use-consent.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

/** Consent has no UI beyond a progress indicator (content not shown). */
export default function ConsentRoute({ search }: { search: { consent_challenge?: string } }) {
  const { error } = useConsent(search);
  if (error) return <ErrorView message={error} mode="login" />;
  return <Progress label={copy.progress.signingIn} />;
}
