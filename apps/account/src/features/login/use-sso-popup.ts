import { useEffect, useEffectEvent, useState } from 'react';
import { SSO_POPUP_MESSAGE } from '../../constants.ts';
import { getConfig } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import { submitForBrowserLocation } from '../../shared/identity-client/browser-location.ts';
import { redirectTo } from '../../shared/navigation/history.ts';
import { createLoginFlow, whoami } from '../../shared/identity-client/identity-client.ts';
import { csrfToken } from '../../shared/identity-client/nodes.ts';
import { registry } from '../../shared/storage/registry.ts';
import { read, remove, write } from '../../shared/storage/storage.ts';
import type { SsoPopupStep, SsoPopupVia } from './select-sso-popup-step.ts';
import type { SsoPopupMessage } from './sso-popup-window.ts';

export type SsoPopupView = 'starting' | 'finishing' | 'done' | 'failed' | 'invalid';

/**
 * Tells the frame that opened this window how the sign-in ended, with the authorization answer for its
 * callback; the window then closes. Nothing else crosses: the session is the identity service's cookie.
 */
async function notifyOpener(via: SsoPopupVia, succeeded: boolean, callback: string | null): Promise<void> {
  remove(registry.ssoPopup);
  if (via === 'teams') {
    // teams-js closes the window itself after passing the result on.
    const { notifyTeamsAuthentication } = await import('../../shared/teams/teams-sdk.ts');
    await notifyTeamsAuthentication(succeeded, callback ?? (succeeded ? 'success' : 'failure'));
    return;
  }
  const message: SsoPopupMessage = {
    type: SSO_POPUP_MESSAGE,
    outcome: succeeded ? 'success' : 'failure',
    ...(callback ? { callback } : {}),
  };
  // Our own origin only: the frame that opened the window is this application.
  window.opener?.postMessage(message, window.location.origin);
  window.close();
}

function hasSession(identityUrl: string): Promise<boolean> {
  return whoami(identityUrl).then(
    () => true,
    () => false,
  );
}

/**
 * The pop-up window's one effect. Start: mark this window as the pop-up, then a login flow of its own
 * with the frame's login challenge (so the identity service accepts it, as in a top-level sign-in),
 * posted to the provider as the SSO step does. Handover: the answer goes to the frame. Finish (no
 * challenge was pending): a session means success.
 */
export function useSsoPopup(step: SsoPopupStep): SsoPopupView {
  const config = getConfig();
  const initial: SsoPopupView =
    step.type === 'start' ? 'starting' : step.type === 'invalid' ? 'invalid' : 'finishing';
  const [view, setView] = useState<SsoPopupView>(initial);

  const run = useEffectEvent(() => {
    const end = (succeeded: boolean, callback: string | null) => {
      setView(succeeded ? 'done' : 'failed');
      void notifyOpener(step.via, succeeded, callback).catch(() => setView('failed'));
    };
    const finishBySession = () => void hasSession(config.identityUrl).then((ok) => end(ok, null));
    switch (step.type) {
      case 'invalid':
        return;
      case 'handover':
        end(true, step.callback);
        return;
      case 'finish':
        finishBySession();
        return;
      case 'start': {
        write(registry.ssoPopup, step.via);
        const returnTo = withQuery(`${window.location.origin}${paths.ssoPopup}`, {
          done: '1',
          via: step.via,
        });
        createLoginFlow(config.identityUrl, {
          login_challenge: read(registry.loginChallenge) ?? undefined,
          return_to: returnTo,
        }).then(
          // The provider by a top-level navigation (no form post: CSP form-action lists our services only).
          (flow) =>
            submitForBrowserLocation(flow.ui.action, {
              method: 'oidc',
              provider: step.provider,
              csrf_token: csrfToken(flow),
            }).then(redirectTo, () => end(false, null)),
          // No flow (e.g. a session is already there): whoever is signed in decides.
          finishBySession,
        );
      }
    }
  });
  useEffect(() => run(), []);
  return view;
}
