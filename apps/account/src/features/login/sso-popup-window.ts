import { SSO_POPUP_MESSAGE } from '../../constants.ts';
import type { SsoOpening } from './decide-sso-opening.ts';

// Opens the SSO pop-up from the Teams frame and waits for its end. The pop-up page (`/account/sso-popup`)
// signs in at the organisation's provider in its own window, carrying the frame's login challenge. Back on
// our callback it hands the authorization answer (`?code=…&state=…` or `?error=…`) to the frame (postMessage
// to its opener, our origin only, or teams-js notifySuccess) and closes; the frame's callback redeems it
// with the PKCE verifier the frame stored.

export type SsoPopupOutcome = 'success' | 'failure' | 'closed' | 'blocked';

export interface SsoPopupResult {
  outcome: SsoPopupOutcome;
  /** The authorization answer for the frame's callback (`?code=…&state=…`), when there is one. */
  callback: string | null;
}

/** What the pop-up page posts to its opener. */
export interface SsoPopupMessage {
  type: typeof SSO_POPUP_MESSAGE;
  outcome: 'success' | 'failure';
  callback?: string;
}

/** The authorization answer's parameters, and nothing else, as a query string (or null). */
export function callbackQuery(search: string): string | null {
  const from = new URLSearchParams(search);
  const kept = new URLSearchParams();
  for (const name of ['code', 'state', 'scope', 'iss', 'error', 'error_description']) {
    const value = from.get(name);
    if (value !== null) kept.set(name, value);
  }
  return kept.has('code') || kept.has('error') ? `?${kept.toString()}` : null;
}

function isSsoPopupMessage(data: unknown): data is SsoPopupMessage {
  if (!data || typeof data !== 'object') return false;
  const { type, outcome, callback } = data as Record<string, unknown>;
  return (
    type === SSO_POPUP_MESSAGE &&
    (outcome === 'success' || outcome === 'failure') &&
    (callback === undefined || typeof callback === 'string')
  );
}

/** The page's own window (the development host, whose http URLs teams-js refuses): opened and polled. */
function openWindow(url: string, opening: Extract<SsoOpening, { kind: 'window' }>): Promise<SsoPopupResult> {
  // Centred on the frame's window, as teams-js places its own.
  const left = window.screenX + Math.max(0, (window.outerWidth - opening.width) / 2);
  const top = window.screenY + Math.max(0, (window.outerHeight - opening.height) / 2);
  const features = `popup,width=${opening.width},height=${opening.height},left=${left},top=${top}`;
  const popup = window.open(url, '_blank', features);
  if (!popup) return Promise.resolve({ outcome: 'blocked', callback: null });
  return new Promise((resolve) => {
    function finish(result: SsoPopupResult) {
      window.clearInterval(timer);
      window.removeEventListener('message', onMessage);
      resolve(result);
    }
    function onMessage(event: MessageEvent) {
      if (event.source !== popup || event.origin !== window.location.origin) return;
      if (!isSsoPopupMessage(event.data)) return;
      const { outcome, callback } = event.data;
      finish({ outcome, callback: callback === undefined ? null : callbackQuery(callback) });
    }
    window.addEventListener('message', onMessage);
    const timer = window.setInterval(() => {
      if (popup.closed) finish({ outcome: 'closed', callback: null });
    }, opening.pollMs);
  });
}

/** The Teams SDK's authentication window; "CancelledByUser" is a window closed by hand. */
async function openTeamsWindow(
  url: string,
  opening: Extract<SsoOpening, { kind: 'teams-sdk' }>,
  validMessageOrigins: string[],
): Promise<SsoPopupResult> {
  const { authenticateInTeams } = await import('../../shared/teams/teams-sdk.ts');
  try {
    const result = await authenticateInTeams(url, opening, validMessageOrigins);
    return { outcome: 'success', callback: callbackQuery(result) };
  } catch (error) {
    const closed = error instanceof Error && error.message === 'CancelledByUser';
    return { outcome: closed ? 'closed' : 'failure', callback: null };
  }
}

export function openSsoPopup(
  url: string,
  opening: Exclude<SsoOpening, { kind: 'navigate' }>,
  validMessageOrigins: string[],
): Promise<SsoPopupResult> {
  return opening.kind === 'window'
    ? openWindow(url, opening)
    : openTeamsWindow(url, opening, validMessageOrigins);
}
