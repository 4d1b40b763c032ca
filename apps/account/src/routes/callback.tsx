import { useEffect } from 'react';
import { preloadScreen } from '../app/router.tsx';
import { copy } from '../copy.ts';
import { CallbackOnboarding } from '../features/callback/callback-onboarding.tsx';
import type { CallbackSearch } from '../features/callback/use-callback.ts';
import { useCallbackRoute } from '../features/callback/use-callback.ts';
import { getConfig } from '../shared/config/env.ts';
import { initialPagePath } from '../shared/config/paths.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

export default function CallbackRoute({ search }: { search: CallbackSearch }) {
  const c = useCallbackRoute(search);
  // Most sign-ins end on the initial page: its chunk downloads while the code is exchanged.
  useEffect(() => preloadScreen(initialPagePath(getConfig().initialPage)), []);
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
