import { useEffect } from 'react';
import { copy } from '../copy.ts';
import { CallbackOnboarding } from '../features/callback/callback-onboarding.tsx';
import type { CallbackSearch } from '../features/callback/use-callback.ts';
import { useCallbackRoute } from '../features/callback/use-callback.ts';
import { selectSsoPopupStep, type SsoPopupVia } from '../features/login/select-sso-popup-step.ts';
import { SsoPopupScreen } from '../features/login/sso-popup-screen.tsx';
import { callbackQuery } from '../features/login/sso-popup-window.ts';
import { useSsoPopup } from '../features/login/use-sso-popup.ts';
import { getConfig } from '../shared/config/env.ts';
import { initialPagePath } from '../shared/config/paths.ts';
import { preloadScreen } from '../shared/navigation/preload.ts';
import { registry } from '../shared/storage/registry.ts';
import { read } from '../shared/storage/storage.ts';
import { ErrorView } from '../shared/ui/error-view.tsx';
import { Progress } from '../shared/ui/progress.tsx';

/**
 * The authorization answer. In the SSO pop-up window of the Teams frame (marked per window) it is handed
 * to the frame, whose callback redeems it; everywhere else it is redeemed here.
 */
export default function CallbackRoute({ search }: { search: CallbackSearch }) {
  const popupVia = read(registry.ssoPopup);
  return popupVia ? <SsoPopupHandover via={popupVia} /> : <Callback search={search} />;
}

function SsoPopupHandover({ via }: { via: SsoPopupVia }) {
  const callback = callbackQuery(window.location.search);
  const step = selectSsoPopupStep(callback ? { via, callback } : { via, done: '1' });
  return <SsoPopupScreen view={useSsoPopup(step)} />;
}

function Callback({ search }: { search: CallbackSearch }) {
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
