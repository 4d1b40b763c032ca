// Business constants and limits. Durations in milliseconds unless the name says otherwise.

export const MIN_PASSWORD_LENGTH = 8;
export const OTP_LENGTH = 6;
export const SSO_REDIRECT_MAX = 5;
/** A wait shorter than this shows no loading indicator: one that flashes reads as a glitch. */
export const LOADING_INDICATOR_DELAY_MS = 300;
/** Work put off until the browser is idle (fetching the next screens' code) waits at most this long. */
export const IDLE_WORK_TIMEOUT_MS = 2000;
/** "Try again" after "Redirect loop detected.": at most this many times (then Use another email, support). */
export const SSO_TRY_AGAIN_MAX = 3;
export const AUTHORIZATION_PARAMS_TTL_MS = 60 * 60 * 1000;
export const LOGIN_CHALLENGE_TTL_MS = 10 * 60 * 1000;
/** How long the calls of one sign-in share one trace at most (tracing on; shared/tracing). */
export const SIGN_IN_TRACE_TTL_MS = 10 * 60 * 1000;
export const SSO_REDIRECT_LOCK_TTL_MS = 10 * 60 * 1000;
export const ONBOARDING_STATE_TTL_MS = 24 * 60 * 60 * 1000;
export const LOGOUT_STATE_TTL_MS = 15 * 1000;
export const MFA_SETUP_STATE_TTL_MS = 3600 * 1000;
/** How long this browser keeps the person's language setting (the longest a browser keeps a cookie). */
export const LOCALE_SETTING_TTL_MS = 400 * 24 * 60 * 60 * 1000;
export const APPLICATION_LOGIN_LOCK_MS = 2 * 1000;
export const APPLICATION_LOGIN_LOCK_BEFORE_SSO_MS = 30 * 1000;
export const REFRESH_LOCK = { expiryMs: 4000, maxTries: 40, waitMs: 70, confirmDelayMs: 30 } as const;
export const TOKEN_REFRESH_MARGIN_MS = 30 * 1000;
export const TOKEN_REFRESH_ATTEMPTS = 3;
export const TOKEN_REFRESH_RETRY_DELAY_MS = 1000;
export const BACKGROUND_REFRESH_BEFORE_EXPIRY_MS = 60 * 1000;
export const BACKGROUND_REFRESH_MIN_REMAINING_MS = 120 * 1000;
/** A second expired token this soon after starting a new authorization: the full-reauth message. */
export const REAUTHORIZE_WINDOW_MS = 60 * 1000;
export const ERROR_TOAST_MS = 60 * 1000;
/** `performance.mark` set when the initial page shows the signed-in user (read by the sign-in benchmark). */
export const LANDING_MARK = 'account:landing';
export const MISSING_SESSION_RETRIES = 1;
export const CODE_VERIFIER_BYTES = 32;
export const TOKEN_EXPIRY_FACTOR_MS = 1000;
export const COOKIE_POLL_MS = 300;
export const COOKIE_HOOK_POLL_MS = 5000;
export const FORM_CARD_WIDTH_PX = 440;
export const TEAMS_SDK = {
  initTimeoutMs: 5000,
  authPopup: { width: 600, height: 400 },
  windowPollMs: 100,
  urlLimit: 2048,
  appIdLength: { min: 5, max: 255 },
  version: '2.30.0',
} as const;
/** The SSO pop-up page tells the frame that opened it how the sign-in ended (postMessage, own origin). */
export const SSO_POPUP_MESSAGE = 'account:sso-popup';
export const SIGN_IN_WRAPPER_VERSION = '2.2.0';
/**
 * The HTTP client's defaults: no time-out, and the XSRF cookie and header. The specified chunk size
 * (65536 bytes) is not kept: this client sends and reads whole JSON bodies through fetch, never a
 * stream, so there is no chunk to size.
 */
export const HTTP_CLIENT = {
  timeoutMs: 0,
  xsrfCookie: 'XSRF-TOKEN',
  xsrfHeader: 'X-XSRF-TOKEN',
} as const;
/** Email-verification result kept client-side (the spec gives no lifetime; one flow's lifetime). */
export const EMAIL_RESULT_TTL_MS = 60 * 60 * 1000;
/** Kratos message id: re-authenticate (refresh=true), the product's "Password confirmation". */
export const MESSAGE_ID_REAUTHENTICATE = 1010003;
export const OAUTH2_SCOPES = 'openid offline_access';
/** Lock around the automatic invitation-code submission (one tab, one submission). */
export const ONBOARDING_CODE_LOCK_MS = 10 * 1000;
/** Prefix of the authorization server's codes: a callback code without it is a source-code-host code. */
export const AUTHORIZATION_CODE_PREFIX = 'ory';
/** Microsoft 365 sign-in: the directory (Graph) token's and the identity token's scopes. */
export const M365_SCOPES = {
  directory: ['email', 'User.Read', 'Organization.Read.All'],
  identity: ['email', 'profile', 'User.Read'],
} as const;
/** The user service's `/m365/login` error codes and the screen modes they lead to. */
export const M365_ERROR_CODES = {
  notSubscribed: 'UserNotSubscribedException',
  notGranted: 'UserNotGrantedAccessException',
  unauthorised: 'UnauthorisedUserException',
  /** Activation: the purchase's tenant already has a subscribed organisation. */
  alreadySubscribed: 'OrganisationAlreadySubscribedException',
  /** Activation: the caller is not the person who bought the subscription. */
  notPurchaser: 'MarketplaceNotPurchaserException',
  /** Activation: the marketplace reports the subscription suspended or unsubscribed. */
  subscriptionInactive: 'MarketplaceSubscriptionInactiveException',
  /** Backend login: the account (identity) is deactivated. */
  accountInactive: 'ACCOUNT_INACTIVE',
  /** Backend login: outside the organisation's trusted networks. */
  networkNotTrusted: 'NETWORK_NOT_TRUSTED',
} as const;
/** The activation flag starts the marketplace activation by itself only when it is exactly this string. */
export const M365_ACTIVATION_FLAG_ON = 'true';
/** Query value of isTeams that means "inside the team-collaboration client". */
export const IS_TEAMS_QUERY_VALUE = '1';
/** Inside the Teams frame a Terms of Service or Privacy Notice link opens a window of this size. */
export const DOCUMENT_WINDOW = { width: 720, height: 800 } as const;

/** The identity service's message: sign-in outside the organisation's trusted networks (not in Kratos). */
export const TRUSTED_NETWORKS_MESSAGE_ID = 4010091;
/**
 * The identity service's message on a settings flow: the person's organisation enforces single
 * sign-on, so no new address, password or passkey is offered (not in Kratos).
 */
export const SSO_MANAGED_MESSAGE_ID = 4010093;
/** The identity service's message: the remembered login is of a deactivated account (not in Kratos). */
export const ACCOUNT_DEACTIVATED_MESSAGE_ID = 4010092;
