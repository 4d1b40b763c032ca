import { copy } from '../copy.ts';
import { CallbackOnboarding } from '../features/callback/callback-onboarding.tsx';
import type { CallbackSearch } from '../features/callback/use-callback.ts';
import { useCallbackRoute } from '../features/callback/use-callback.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

export default function CallbackRoute({ search }: { search: CallbackSearch }) {
  const c = useCallbackRoute(search);
  if (c.error) return <ErrorView message={c.error} mode="login" />;
  if (c.onboarding && c.steps.length > 0) {
    return (
      <CallbackOnboarding
        steps={c.steps}
        facts={c.facts}
        busy={c.busy}
        formErrors={c.formErrors}
        supportEmail={c.config.supportEmail}
        onAuthenticateGit={() => void c.authenticateGit()}
        onAccept={c.accept}
      />
    );
  }
  return <Progress label={copy.progress.signingIn} />;
}
