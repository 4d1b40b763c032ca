import {
  APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS,
  SSO_REDIRECT_LOCK_TTL_MS,
  SSO_REDIRECT_MAX,
  SSO_TRY_AGAIN_MAX,
} from '../../constants.ts';
import { isLockHeld } from '../../shared/storage/cookie-lock.ts';
import type { Lock } from '../../shared/storage/registry.ts';

// Login step 3 (single sign-on) as pure functions; the SSO step component runs them.

/**
 * `loop` offers "Try again"; `loop-final` (the tries are used up) only "Use another email" and the
 * support contact. Every view offers "Use another email".
 */
export type SsoStepView = 'redirect' | 'proceed' | 'loop' | 'loop-final' | 'popup';

/**
 * More than 5 redirects: a loop, with "Try again" until it was used 3 times. A redirect lock still
 * held (a redirect started less than 10 minutes ago, e.g. the user came back from the provider
 * without signing in): wait for the Proceed button. Otherwise redirect now. Inside the Teams frame the
 * provider opens in a pop-up window, which only a click may open (pop-up blockers), and the frame never
 * redirects, so there is no loop to count: the `popup` view, with its button.
 */
export function ssoStepView(input: {
  lock: Lock | null;
  redirects: number;
  /** How many times "Try again" was used. */
  tries: number;
  now: number;
  /** The sign-in runs in a pop-up window (`decideSsoOpening`). */
  popup?: boolean;
}): SsoStepView {
  if (input.popup) return 'popup';
  if (input.redirects > SSO_REDIRECT_MAX) return input.tries >= SSO_TRY_AGAIN_MAX ? 'loop-final' : 'loop';
  if (isLockHeld(input.lock, input.now)) return 'proceed';
  return 'redirect';
}

export interface SsoRedirectPlan {
  /** The SSO redirect lock (10 min). */
  ssoLock: Lock;
  /** The application-login lock, raised to 30 s so no authorize redirect races the provider's. */
  loginLock: Lock;
  redirects: number;
  /** What is submitted (as JSON) to the flow's action; its answer names the provider's URL. */
  form: { action: string; fields: Record<string, string> };
}

export function planSsoRedirect(input: {
  now: number;
  newId: () => string;
  redirects: number;
  flow: { action: string; csrfToken: string };
  provider: string;
}): SsoRedirectPlan {
  return {
    ssoLock: { id: input.newId(), expiresAt: input.now + SSO_REDIRECT_LOCK_TTL_MS },
    loginLock: { id: input.newId(), expiresAt: input.now + APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS },
    redirects: input.redirects + 1,
    form: {
      action: input.flow.action,
      fields: { method: 'oidc', provider: input.provider, csrf_token: input.flow.csrfToken },
    },
  };
}
