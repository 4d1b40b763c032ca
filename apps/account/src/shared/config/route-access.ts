import {
  CONSOLE_PATHS,
  CONSOLE_SSO_TEST_CALLBACK,
  paths,
  SETTINGS_SECTION_PATHS,
  withQuery,
} from './paths.ts';

// Who may open each route the router serves, one table. The router applies it before any screen
// renders, so no screen handles a signed-out visitor itself. Every fixed path of the router is
// listed, and nothing else (`app/router.test.ts` fails otherwise).
//
// - `guests: true`: guest-allowed. The account's onboarding, mfa-setup, verification, login,
//   m365-login and forgot-password, plus registration, the documents (terms, privacy), Access
//   Denied, the SSO pop-up, the console's Test sign-in callback, and device (the code is typed before
//   any sign-in: accepting it starts the authorization server's login challenge, which signs the
//   person in by any method the application allows).
// - `guests: false`: signed-in visitors only (an identity session, or a stored OAuth2 token, which
//   is how an m365 sign-in holds). The account's profile, consent, callback, logout, m365-logout and
//   error, plus settings and the organisation admin console (`/admin/*`). A signed-out visitor goes
//   to login. The exceptions are answers of the authorization and identity servers, which arrive
//   when nobody is signed in by design and carry their own proof: `returns` lists their parameters.
// - `guests: 'screen'`: the platform pages after sign-in (`/research`, the welcome page). The router
//   renders them for anyone and their screen's access guard decides: it checks the token's mode,
//   products and scope groups, and sends a visitor without a token to login without asking for the
//   session (the login page asks once). A configured initial page is the same landing screen under
//   another path: not listed here, it is decided the same way.

export interface RouteAccess {
  guests: boolean | 'screen';
  /** Guarded route: query parameters that make this visit a server's answer, open to anyone. */
  returns?: readonly string[];
  /** Guarded route: the login query a signed-out visitor is sent with (e.g. profile's flow). */
  loginQuery?: (search: Record<string, string>) => Record<string, string | undefined>;
}

export const ROUTE_ACCESS: Readonly<Record<string, RouteAccess>> = {
  // Guest-allowed account pages.
  [paths.onboarding]: { guests: true },
  [paths.mfaSetup]: { guests: true },
  [paths.verification]: { guests: true },
  // Self sign-up (issue 25): the identity service decides who may register (open organisations' domains).
  [paths.registration]: { guests: true },
  [paths.login]: { guests: true },
  [paths.m365Login]: { guests: true },
  [paths.forgotPassword]: { guests: true },
  // Documents linked from the Email step, and the Access Denied pages (shown to whoever the guard
  // turned away).
  [paths.terms]: { guests: true },
  [paths.privacy]: { guests: true },
  [paths.accessDenied]: { guests: true },
  // The SSO pop-up window opened from the Teams frame: it signs in, so nobody is signed in yet.
  [paths.ssoPopup]: { guests: true },
  // "Connect a device" (RFC 8628): the code comes first, the sign-in after it (login challenge).
  [paths.device]: { guests: true },
  // The console's Test sign-in pop-up: it signs nobody in, and hands the provider's answer only to
  // the console page that opened it, whose own token completes the test.
  [CONSOLE_SSO_TEST_CALLBACK]: { guests: true },
  // Signed-in account pages.
  [paths.profile]: {
    guests: false,
    // A signed-out visitor goes to login with the settings flow as `profileFlow`.
    loginQuery: (s) => ({ profileFlow: s.profileFlow ?? s.flow }),
  },
  // The authorization server's consent request (the screen retries the login once without a session).
  [paths.consent]: { guests: false, returns: ['consent_challenge'] },
  // The authorization server's answer: a code or an error, checked against the stored state.
  [paths.callback]: { guests: false, returns: ['code', 'error'] },
  // The authorization server's logout request and its post-logout return.
  [paths.logout]: { guests: false, returns: ['logout_challenge', 'post_logout'] },
  // The second half of a logout that found a Microsoft account signed in (nobody is signed in here).
  [paths.m365Logout]: { guests: false, returns: ['after_logout'] },
  // The identity service's error page for a flow (`id`), whoever ran the flow.
  [paths.error]: { guests: false, returns: ['id'] },
  // The account page and the organisation admin console: their screens' access guards check the
  // rest (the console also the admin application and the caller's permissions).
  [paths.settings]: { guests: false },
  ...Object.fromEntries(SETTINGS_SECTION_PATHS.map((path) => [path, { guests: false }])),
  ...Object.fromEntries(Object.values(CONSOLE_PATHS).map((path) => [path, { guests: false }])),
  // The platform pages after sign-in: their screens' access guards decide.
  [paths.research]: { guests: 'screen' },
  [paths.welcome]: { guests: 'screen' },
};

export type RouteAccessDecision =
  | { type: 'render' }
  /** The answer depends on whether someone is signed in: load the session first. */
  | { type: 'check-session' }
  | { type: 'redirect'; to: string };

export interface RouteAccessInput {
  path: string;
  search: Record<string, string>;
  /** null while unknown (the session is loading); a stored token counts as signed in. */
  signedIn: boolean | null;
}

/**
 * The router's one rule for signed-out visitors. A path outside the table (a configured initial page)
 * renders, as the landing screen's own guard decides.
 */
export function decideRouteAccess(input: RouteAccessInput): RouteAccessDecision {
  const access = ROUTE_ACCESS[input.path];
  if (!access || access.guests !== false) return { type: 'render' };
  if (access.returns?.some((name) => input.search[name] !== undefined)) return { type: 'render' };
  if (input.signedIn === null) return { type: 'check-session' };
  if (input.signedIn) return { type: 'render' };
  return { type: 'redirect', to: withQuery(paths.login, access.loginQuery?.(input.search) ?? {}) };
}
