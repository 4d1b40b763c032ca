import * as z from 'zod/mini';
import { LOCALES } from '@acme/i18n';
import { APPLICATIONS } from '../config/applications.ts';
import {
  APPLICATION_LOGIN_LOCK_MS,
  AUTHORIZATION_PARAMS_TTL_MS,
  EMAIL_RESULT_TTL_MS,
  LOCALE_SETTING_TTL_MS,
  LOGIN_CHALLENGE_TTL_MS,
  LOGOUT_STATE_TTL_MS,
  MFA_SETUP_STATE_TTL_MS,
  ONBOARDING_CODE_LOCK_MS,
  ONBOARDING_STATE_TTL_MS,
  REFRESH_LOCK,
  SIGN_IN_TRACE_TTL_MS,
  SSO_REDIRECT_LOCK_TTL_MS,
} from '../../constants.ts';

// Every cookie and localStorage key of the app, declared once:
// key, zod schema, lifetime and medium. Invalid values are dropped on read. Nothing outside
// shared/storage touches document.cookie or localStorage.

export type Medium = 'cookie' | 'localStorage' | 'sessionStorage';

export interface StorageEntry<T> {
  key: string;
  schema: z.ZodMiniType<T>;
  medium: Medium;
  /** Medium used instead while the isTeams flag is set (the team client blocks third-party cookies). */
  mediumInTeams?: Medium;
  /** Lifetime; cookies get Max-Age, localStorage values carry their own expiry where the spec has one. */
  ttlMs?: number;
  /** A cookie of this origin only, never of the configured cookie domain. */
  hostOnly?: boolean;
}

function entry<T>(e: StorageEntry<T>): StorageEntry<T> {
  return e;
}

const lockSchema = z.object({ id: z.string(), expiresAt: z.number() });
export type Lock = z.infer<typeof lockSchema>;

const oauth2TokenSchema = z.object({
  accessToken: z.string().check(z.minLength(1)),
  refreshToken: z.nullable(z.string()),
  expiresAt: z.nullable(z.number()),
});
export type OAuth2Token = z.infer<typeof oauth2TokenSchema>;

const authorizationParamsSchema = z.object({
  codeVerifier: z.string().check(z.minLength(43)),
  state: z.string().check(z.minLength(8)),
  expiration: z.number(),
});
export type AuthorizationParams = z.infer<typeof authorizationParamsSchema>;

const emailResultSchema = z.object({
  email: z.string(),
  isSSO: z.boolean(),
  isM365: z.boolean(),
  provider: z.nullable(z.string()),
  /** The organisation has MAGIC: where an application without Microsoft 365 sign-in points its m365 people. */
  hasMagic: z.optional(z.boolean()),
  /** The organisation has self sign-up open: the Password step offers "Create an account". */
  selfSignUp: z.optional(z.boolean()),
  /**
   * The person chose "Sign in with a password (administrators)" on the SSO step: the Password step
   * shows for this SSO address. The identity service decides (only the operator's break-glass
   * org-admin is accepted where SSO is enforced).
   */
  passwordInstead: z.optional(z.boolean()),
});
export type EmailResult = z.infer<typeof emailResultSchema>;

const pendingEmailSchema = z.object({ email: z.string().check(z.minLength(1)), expiresAt: z.number() });
export type PendingEmail = z.infer<typeof pendingEmailSchema>;

const signInTraceSchema = z.object({
  traceId: z.string().check(z.regex(/^(?!0{32})[0-9a-f]{32}$/)),
  expiresAt: z.number(),
});
export type SignInTrace = z.infer<typeof signInTraceSchema>;

const logoutStateSchema = z.enum(['in_progress', 'completed']);
export type LogoutState = z.infer<typeof logoutStateSchema>;

const onboardingStateSchema = z.object({
  codeSubmitted: z.boolean(),
  passwordSet: z.boolean(),
  isSessionRefreshRequired: z.boolean(),
});
export type OnboardingState = z.infer<typeof onboardingStateSchema>;

const resetPasswordStateSchema = z.object({
  inProgress: z.boolean(),
  completed: z.boolean(),
  email: z.optional(z.string()),
});

export const registry = {
  /** Hydra login challenge, stored then the login page reloads without it. */
  loginChallenge: entry({
    key: 'login_challenge',
    schema: z.string().check(z.minLength(1)),
    medium: 'cookie',
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  /** The OAuth2 token; local storage in the team client. Session cookie. */
  oauth2Token: entry({
    key: 'oauth2_token',
    schema: oauth2TokenSchema,
    medium: 'cookie',
    mediumInTeams: 'localStorage',
  }),
  /** PKCE verifier and state; the value carries its own 1 h expiration. */
  authorizationParams: entry({
    key: 'oauth2_authorization_params',
    schema: authorizationParamsSchema,
    medium: 'localStorage',
    ttlMs: AUTHORIZATION_PARAMS_TTL_MS,
  }),
  /**
   * The app's own PKCE verifier and state that a server hand-off replaced while they were still
   * valid: the authorization they started may be the one that comes back (the person opened the
   * login page while a page that lost its token started its own authorization, and the browser
   * abandoned the server's). The callback takes whichever of the two its state names.
   */
  supersededAuthorizationParams: entry({
    key: 'oauth2_authorization_params_superseded',
    schema: authorizationParamsSchema,
    medium: 'localStorage',
    ttlMs: AUTHORIZATION_PARAMS_TTL_MS,
  }),
  /**
   * The PKCE verifier and state of an authorization the account app server started (it answers the
   * login route with the redirect to the authorization endpoint): read once at start-up, moved to
   * `authorizationParams` and deleted. This origin's cookie only.
   */
  authorizationHandoff: entry({
    key: 'oauth2_authorization_handoff',
    schema: authorizationParamsSchema,
    medium: 'cookie',
    hostOnly: true,
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  /**
   * The trace id the calls of the sign-in in progress in this tab share (tracing on), from the
   * authorize redirect to the code exchange; the value carries its own expiration.
   */
  signInTrace: entry({
    key: 'sign_in_trace',
    schema: signInTraceSchema,
    medium: 'sessionStorage',
    ttlMs: SIGN_IN_TRACE_TTL_MS,
  }),
  isTeams: entry({ key: 'isTeams', schema: z.boolean(), medium: 'localStorage' }),
  /**
   * The person's own language (their account setting) as last seen here, used before a session is
   * known: by the app's first render, and by the account app server for the login page it sends. This
   * origin's cookie only; local storage in the team client.
   */
  locale: entry({
    key: 'locale',
    schema: z.enum(LOCALES),
    medium: 'cookie',
    mediumInTeams: 'localStorage',
    hostOnly: true,
    ttlMs: LOCALE_SETTING_TTL_MS,
  }),
  logoutState: entry({
    key: 'logout_state',
    schema: logoutStateSchema,
    medium: 'cookie',
    ttlMs: LOGOUT_STATE_TTL_MS,
  }),
  /**
   * Logout found a Microsoft account still signed in while the token was not an m365 one: after the
   * identity and authorization servers' logout, the login page sends the browser to the m365 logout
   * subpage to sign that account out too (logout signs out of Microsoft whenever the sign-in mode is
   * m365 or a Microsoft account is signed in).
   */
  cloudSignOutPending: entry({
    key: 'cloud_sign_out_pending',
    schema: z.boolean(),
    medium: 'cookie',
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  ssoRedirectLock: entry({
    key: 'sso_redirect_lock',
    schema: lockSchema,
    medium: 'cookie',
    ttlMs: SSO_REDIRECT_LOCK_TTL_MS,
  }),
  ssoRedirects: entry({
    key: 'sso_redirects',
    schema: z.number(),
    medium: 'cookie',
    ttlMs: SSO_REDIRECT_LOCK_TTL_MS,
  }),
  /** How many times "Try again" restarted single sign-on after a redirect loop (at most 3). */
  ssoTries: entry({
    key: 'sso_tries',
    schema: z.number(),
    medium: 'cookie',
    ttlMs: SSO_REDIRECT_LOCK_TTL_MS,
  }),
  /** Which application started the login. */
  application: entry({
    key: 'application',
    schema: z.enum(APPLICATIONS),
    medium: 'cookie',
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  firstLogin: entry({
    key: 'first_login',
    schema: z.boolean(),
    medium: 'cookie',
    ttlMs: ONBOARDING_STATE_TTL_MS,
  }),
  onboardingState: entry({
    key: 'onboarding_state',
    schema: onboardingStateSchema,
    medium: 'cookie',
    ttlMs: ONBOARDING_STATE_TTL_MS,
  }),
  /** Lock around the automatic invitation-code submission. */
  onboardingCodeLock: entry({
    key: 'onboarding_code_lock',
    schema: lockSchema,
    medium: 'cookie',
    ttlMs: ONBOARDING_CODE_LOCK_MS,
  }),
  resetPasswordState: entry({
    key: 'reset_password_state',
    schema: resetPasswordStateSchema,
    medium: 'cookie',
    ttlMs: AUTHORIZATION_PARAMS_TTL_MS,
  }),
  mfaSetupState: entry({
    key: 'mfa_setup_state',
    schema: z.object({ initialised: z.boolean() }),
    medium: 'cookie',
    ttlMs: MFA_SETUP_STATE_TTL_MS,
  }),
  /** Result of the email step. */
  emailResult: entry({
    key: 'email_verification_result',
    schema: emailResultSchema,
    medium: 'cookie',
    ttlMs: EMAIL_RESULT_TTL_MS,
  }),
  /**
   * The address the person continued with on the Email step while the page could still leave for
   * the authorization server (its login challenge not yet checked): continued as soon as the page
   * stays, on this page or the one the authorization server sends back. Per tab; it lives as long as
   * a login challenge (`expiresAt`).
   */
  pendingEmail: entry({ key: 'pending_email', schema: pendingEmailSchema, medium: 'sessionStorage' }),
  missingSessionRetried: entry({
    key: 'missing_session_retried',
    schema: z.boolean(),
    medium: 'cookie',
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  /** Application-login lock: one authorize redirect at a time (2 s, 30 s before an SSO redirect). */
  loginLock: entry({
    key: 'login_lock',
    schema: lockSchema,
    medium: 'cookie',
    ttlMs: APPLICATION_LOGIN_LOCK_MS,
  }),
  /** Cookie lock around code exchange and refresh (4 s). */
  refreshLock: entry({
    key: 'oauth2_refresh_lock',
    schema: lockSchema,
    medium: 'cookie',
    ttlMs: REFRESH_LOCK.expiryMs,
  }),
  m365Token: entry({ key: 'm365-token', schema: z.string(), medium: 'localStorage' }),
  /** m365 login: start the marketplace activation by itself once signed in (only the string 'true'). */
  m365ActivationFlag: entry({ key: 'm365_activation', schema: z.string(), medium: 'localStorage' }),
  /** m365 login: the Final Step already sent the browser to a redirect sign-in (once per purchase). */
  m365RedirectAttempted: entry({
    key: 'm365_redirect_attempted',
    schema: z.boolean(),
    medium: 'cookie',
    ttlMs: LOGIN_CHALLENGE_TTL_MS,
  }),
  /** When this tab last started a new authorization because its token could not be renewed. */
  reauthorizeStartedAt: entry({
    key: 'reauthorize_started_at',
    schema: z.number(),
    medium: 'sessionStorage',
  }),
  /**
   * This tab's id (per tab, survives its navigations): the application-login lock names its holder,
   * so a tab that left its own authorize redirect half-way does not wait for itself.
   */
  tabId: entry({ key: 'tab_id', schema: z.string(), medium: 'sessionStorage' }),
  /**
   * The entry module this tab last started (its URL path): its code is in this browser's cache, so
   * the login page starts it at once instead of after the first paint (server/deferred-start.ts).
   */
  startedEntry: entry({ key: 'started_entry', schema: z.string(), medium: 'sessionStorage' }),
  /**
   * This window is the SSO pop-up of the Teams frame, and how the frame opened it (`teams`: teams-js;
   * `window`: the page). Per window: its return to our callback hands the answer to the frame.
   */
  ssoPopup: entry({ key: 'sso_popup', schema: z.enum(['teams', 'window']), medium: 'sessionStorage' }),
  /** The device page's code from `verification_uri_complete`, kept while the page fetches its challenge. */
  deviceUserCode: entry({ key: 'device_user_code', schema: z.string(), medium: 'sessionStorage' }),
  /**
   * A device client's login request this tab's device page handed to the login page: the login
   * page's Microsoft 365 way out (Platform → MAGIC) and MAGIC's m365 sign-in come back with it.
   */
  deviceLoginChallenge: entry({
    key: 'device_login_challenge',
    schema: z.string().check(z.minLength(1)),
    medium: 'sessionStorage',
  }),
} as const;

/** Everything that is local login state, cleared by logout. */
export const loginStateEntries: StorageEntry<unknown>[] = [
  registry.loginChallenge,
  registry.oauth2Token,
  registry.authorizationParams,
  registry.supersededAuthorizationParams,
  registry.ssoRedirectLock,
  registry.ssoRedirects,
  registry.ssoTries,
  registry.application,
  registry.firstLogin,
  registry.onboardingState,
  registry.resetPasswordState,
  registry.mfaSetupState,
  registry.emailResult,
  registry.pendingEmail,
  registry.missingSessionRetried,
  registry.loginLock,
  registry.m365Token,
  registry.m365ActivationFlag,
  registry.m365RedirectAttempted,
  registry.cloudSignOutPending,
] as StorageEntry<unknown>[];
