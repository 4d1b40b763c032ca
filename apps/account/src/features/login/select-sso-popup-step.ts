// The SSO pop-up window (opened from the Teams frame) as a pure function of where it is. Its visits:
// - `/account/sso-popup?provider=…&via=…`: start a login flow (with the frame's login challenge) and
//   post it to the provider;
// - `/account/callback?code=…` (the window is marked as the pop-up): hand the answer to the frame;
// - `/account/sso-popup?done=1&via=…`: back without an authorization (no challenge was pending): the
//   session alone says whether it worked.

/** How the frame opened the window, so how to tell it the end: teams-js, or postMessage to the opener. */
export type SsoPopupVia = 'teams' | 'window';

export type SsoPopupStep =
  | { type: 'start'; provider: string; via: SsoPopupVia }
  | { type: 'handover'; callback: string; via: SsoPopupVia }
  | { type: 'finish'; via: SsoPopupVia }
  | { type: 'invalid'; via: SsoPopupVia };

/** Provider ids are the identity service's (`globex`, `acme-entra`): short, no spaces or markup. */
const PROVIDER_ID = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export function selectSsoPopupStep(input: {
  provider?: string;
  done?: string;
  via?: string;
  /** On the callback route of the marked window: the authorization answer (`callbackQuery`). */
  callback?: string | null;
  /** The window has an opener (the frame). Teams' desktop hosts open it themselves: only `teams` may lack one. */
  hasOpener?: boolean;
}): SsoPopupStep {
  const via: SsoPopupVia = input.via === 'teams' ? 'teams' : 'window';
  // A page opened as a plain link (no frame to hand the answer to) would strand the sign-in: it starts nothing.
  if (via === 'window' && input.hasOpener === false && !input.callback && input.done !== '1') {
    return { type: 'invalid', via };
  }
  if (input.callback) return { type: 'handover', callback: input.callback, via };
  if (input.done === '1') return { type: 'finish', via };
  if (input.provider && PROVIDER_ID.test(input.provider)) {
    return { type: 'start', provider: input.provider, via };
  }
  return { type: 'invalid', via };
}
