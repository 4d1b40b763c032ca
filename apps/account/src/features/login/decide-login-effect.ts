import type { Application } from '../../shared/config/env.ts';
import { paths, withQuery } from '../../shared/config/paths.ts';
import type { SessionState } from '../../shared/session/session-facts.ts';
import type { EmailResult } from '../../shared/storage/registry.ts';

// The login effects as a pure function returning one command; use-login-effects.ts runs it.

export interface LoginEffectInput {
  application: Application;
  /** Which application started the login (cookie). */
  applicationCookie: Application | null;
  urlMap: Record<Application, string>;
  location: { pathname: string; search: string };
  queryChallenge: string | null;
  /**
   * The rest of the login query (`profileFlow` is read by the 2FA set-up step, `flow` by the
   * flow loader): an authorization answer's `error`/`error_description`, an authorization `code`,
   * a `consent_challenge` and `post_logout`.
   */
  query?: LoginQuery;
  storedChallenge: string | null;
  sessionState: SessionState;
  authenticated: boolean;
  /** The session passed its second factor but still owes onboarding steps (source-code host, terms). */
  onboardingDue: boolean;
  hasToken: boolean;
  emailResult: EmailResult | null;
  /** This application allows Microsoft 365 sign-in and has its set-up. */
  m365SignIn: boolean;
  resetPasswordInProgress: boolean;
  /** The session was already reloaded once after it expired with a token present. */
  sessionReloaded: boolean;
  loginLockHeld: boolean;
  initialPagePath: string;
  /** Logout left a Microsoft account to sign out once the identity session has ended. */
  cloudSignOutPending?: boolean;
  /**
   * The identity service sent the browser here with a flow (`?flow=`) although the session is
   * authenticated: it asks for a password confirmation (a privileged change, e.g. unlinking the
   * source-code host) or a higher level. Its step renders instead of leaving for the initial page.
   */
  flowInQuery?: boolean;
}

export interface LoginQuery {
  error?: string;
  error_description?: string;
  code?: string;
  consent_challenge?: string;
  post_logout?: string;
}

export type LoginCommand =
  | { type: 'none' }
  | { type: 'oauth2-error'; code: string; description: string }
  | { type: 'go'; to: string }
  | { type: 'finish-logout'; reloadTo: string }
  | { type: 'wait' }
  | { type: 'redirect-application'; url: string }
  | { type: 'store-challenge'; challenge: string; reloadTo: string }
  | { type: 'go-m365-login' }
  | { type: 'go-forgot-password' }
  | { type: 'go-initial-page'; path: string }
  | { type: 'go-callback' }
  | { type: 'reload-session' }
  | { type: 'remove-token' }
  | { type: 'authorize' };

function withoutParam(location: { pathname: string; search: string }, name: string): string {
  const params = new URLSearchParams(location.search);
  params.delete(name);
  const qs = params.toString();
  return qs ? `${location.pathname}?${qs}` : location.pathname;
}

/**
 * The login query parameters, before anything else: an authorization answer's error is shown
 * (never followed by a new authorization, which would only loop); a `code` is the callback's; a
 * `consent_challenge` is the consent screen's; `post_logout` ends a logout (local state cleared,
 * then the login starts afresh without the parameter).
 */
export function decideLoginQuery(
  query: LoginQuery,
  location: { pathname: string; search: string },
): LoginCommand | null {
  if (query.error)
    return { type: 'oauth2-error', code: query.error, description: query.error_description ?? '' };
  if (query.consent_challenge) {
    return { type: 'go', to: withQuery(paths.consent, { consent_challenge: query.consent_challenge }) };
  }
  if (query.code) return { type: 'go', to: `${paths.callback}${location.search}` };
  if (query.post_logout !== undefined)
    return { type: 'finish-logout', reloadTo: withoutParam(location, 'post_logout') };
  return null;
}

export function decideLoginEffect(input: LoginEffectInput): LoginCommand {
  const fromQuery = input.query ? decideLoginQuery(input.query, input.location) : null;
  if (fromQuery) return fromQuery;
  // A return from the authorization server to a different application than the one that started
  // the login goes to that application's URL-map entry, same path and query.
  if (input.queryChallenge && input.applicationCookie && input.applicationCookie !== input.application) {
    const target = new URL(
      input.location.pathname + input.location.search,
      input.urlMap[input.applicationCookie],
    );
    return { type: 'redirect-application', url: target.toString() };
  }
  // A login_challenge parameter is stored (cookie, 10 min) and the login route reloads without it.
  if (input.queryChallenge) {
    return {
      type: 'store-challenge',
      challenge: input.queryChallenge,
      reloadTo: withoutParam(input.location, 'login_challenge'),
    };
  }
  if (input.sessionState === 'loading' || input.sessionState === 'error') return { type: 'wait' };
  // The identity and authorization servers' logout is done: now the Microsoft account.
  if (input.cloudSignOutPending && input.sessionState === 'none') {
    return { type: 'go', to: withQuery(paths.m365Logout, { after_logout: '1' }) };
  }
  // An m365 result with no authentication goes to the m365 login with autoContinue, where the
  // application has one (otherwise the login step says that it has none).
  if (input.emailResult?.isM365 && !input.authenticated && input.m365SignIn) return { type: 'go-m365-login' };
  // An in-progress password reset continues on forgot-password.
  if (input.resetPasswordInProgress) return { type: 'go-forgot-password' };
  const hasSession = input.sessionState === 'present';
  if (hasSession && input.authenticated && !input.flowInQuery) {
    if (input.hasToken) return { type: 'go-initial-page', path: input.initialPagePath };
    // With a session but no OAuth2 token, go to the callback (which obtains one).
    if (!input.storedChallenge) return { type: 'go-callback' };
  }
  // A session that still owes onboarding steps (link the source-code host, accept the terms): the
  // callback obtains a token if needed and shows its onboarding stepper.
  if (hasSession && input.onboardingDue && !input.storedChallenge) return { type: 'go-callback' };
  // A session that expired while a token is present: reload the session once, then remove the token.
  if (input.sessionState === 'none' && input.hasToken) {
    return input.sessionReloaded ? { type: 'remove-token' } : { type: 'reload-session' };
  }
  // Without a token or challenge: take the lock, get an authorize URI and redirect. A session that is
  // not authenticated yet (second factor to give or set up, password to confirm) renders its step
  // first; authorizing now would only come back here through the callback.
  if (!input.hasToken && !input.storedChallenge && input.sessionState === 'none') {
    return input.loginLockHeld ? { type: 'wait' } : { type: 'authorize' };
  }
  return { type: 'none' };
}
