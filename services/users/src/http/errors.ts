import { ServiceError } from '@acme/service-kit/errors';

/** Every error code the user service answers with, and its HTTP status. */
const errorCatalogue = {
  INVALID_REQUEST: 400,
  /** Webhooks: the URL is not https, names or resolves to a private address, or is malformed. */
  WEBHOOK_URL_REFUSED: 400,
  INVALID_EMAIL: 400,
  EMAIL_DOMAIN_MISMATCH: 400,
  IDENTITY_REJECTED: 400,
  /** SAML: the IdP metadata is refused (malformed, a DTD, too large, no signing certificate…). */
  SAML_METADATA_INVALID: 400,
  INVALID_CODE: 400,
  INVALID_STATE: 400,
  /** Device sign-in (RFC 8628): the user code is unknown, has expired, or was already used. */
  DEVICE_CODE_INVALID: 400,
  DEVICE_CODE_EXPIRED: 400,
  DEVICE_CODE_USED: 400,
  /** The marketplace does not know the purchase token, or it has expired. */
  InvalidMarketplaceTokenException: 400,
  GIT_AUTH_FAILED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  SECOND_FACTOR_REQUIRED: 403,
  /** The change needs a recent sign-in (a privileged session): confirm the password, then retry. */
  REAUTHENTICATION_REQUIRED: 403,
  SESSION_MISMATCH: 403,
  /** A consent screen's application answered without the person's Allow or Deny. */
  CONSENT_REQUIRED: 403,
  /** The account's address was never proven by its emailed code (a self sign-up): no tokens yet. */
  EMAIL_NOT_VERIFIED: 403,
  /** The person has never accepted the terms: the app shows the Terms step, then asks again. */
  TERMS_NOT_ACCEPTED: 403,
  USER_NOT_LINKED: 403,
  /** The identity is deactivated (a revoked invitation, an operator's deactivation). */
  ACCOUNT_INACTIVE: 403,
  PERMISSION_DENIED: 403,
  /** Trusted networks: the organisation allows sign-in only from its CIDR ranges. */
  NETWORK_NOT_TRUSTED: 403,
  /**
   * Device sign-in with Microsoft 365: the request is not a device client's, its sign-in was not a
   * Microsoft 365 one, or it belongs to another person than the caller's token.
   */
  DEVICE_SIGN_IN_REFUSED: 403,
  /** Microsoft 365: the tenant's organisation has no subscription (or there is none). */
  UserNotSubscribedException: 403,
  /** Microsoft 365: an administrator has not consented to the app's permissions in the tenant. */
  UserNotGrantedAccessException: 403,
  /** Microsoft 365: the tenant's organisation is known, the person is not one of its users. */
  UnauthorisedUserException: 403,
  /** The marketplace purchase belongs to another tenant than the caller's. */
  MarketplaceTenantMismatchException: 403,
  /** Only the person who bought the marketplace subscription may activate it. */
  MarketplaceNotPurchaserException: 403,
  JIT_DISABLED: 403,
  /** Self sign-up is not open for the address's domain, or the organisation may not open it (SSO enforced). */
  SELF_SIGNUP_NOT_ALLOWED: 403,
  /** SSO: the person's organisation enforces SSO and this session did not come from its provider. */
  SSO_REQUIRED: 403,
  /** SSO: the address's user belongs to another organisation than the provider's. */
  SSO_ORGANISATION_MISMATCH: 403,
  /** SSO: the break-glass exemption names someone who is not an org-admin of the organisation. */
  SSO_BREAK_GLASS_NOT_ORG_ADMIN: 400,
  /** Console Test sign-in: the state is unknown, expired, spent, or another admin's. */
  SSO_TEST_STATE_INVALID: 400,
  /** Console Test sign-in: the provider refused, or answered something we would refuse at sign-in. */
  SSO_TEST_FAILED: 422,
  NOT_FOUND: 404,
  SUBSCRIPTION_NOT_FOUND: 404,
  /** A webhook whose operation the marketplace's Get Operation API does not confirm. */
  MARKETPLACE_OPERATION_NOT_FOUND: 404,
  ORGANISATION_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  CONSENT_REQUEST_NOT_FOUND: 404,
  LOGOUT_REQUEST_NOT_FOUND: 404,
  /** The login request is unknown, expired or was already answered. */
  LOGIN_REQUEST_NOT_FOUND: 404,
  /** The device page's challenge is unknown, expired or already used: open the page again. */
  DEVICE_REQUEST_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  API_CLIENT_NOT_FOUND: 404,
  SSO_NOT_CONFIGURED: 404,
  SCIM_TOKEN_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  DOMAIN_TAKEN: 409,
  /** The purchase's tenant already has an organisation with another active subscription. */
  OrganisationAlreadySubscribedException: 409,
  /** The marketplace reports the purchase as suspended or unsubscribed: it cannot be activated. */
  MarketplaceSubscriptionInactiveException: 409,
  USER_EXISTS: 409,
  /** Console: the change would leave the organisation without an active org-admin. */
  LAST_ORG_ADMIN: 409,
  SSO_PROVIDER_TAKEN: 409,
  /** Console SCIM: an organisation holds at most 5 live SCIM tokens. */
  LIMIT_REACHED: 409,
  /** Webhooks: the organisation has WEBHOOK_MAX_ENDPOINTS endpoints already. */
  WEBHOOK_LIMIT_REACHED: 409,
  /** Console: the member's role follows their directory's groups (SCIM group mapping). */
  MANAGED_BY_DIRECTORY: 409,
  /** Trusted networks: the list excludes the admin's own address; confirm to save it. */
  LOCKOUT_CONFIRMATION_REQUIRED: 409,
  /** A path parameter longer than the router accepts (414 in our shape). */
  URI_TOO_LONG: 414,
  INVITATION_ACCEPTED: 409,
  TERMS_VERSION_OUTDATED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  /** SAML: the IdP metadata URL could not be read (refused address, time-out, redirect, status…). */
  SAML_METADATA_UNREACHABLE: 502,
  NOT_READY: 503,
  /** The database cannot be reached right now (Retry-After): nothing was changed. */
  SERVICE_UNAVAILABLE: 503,
  /** The process is past capacity (event-loop lag): the request was shed before any work (Retry-After). */
  OVERLOADED: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

/** The one error type of the user service. Its message is shown to callers, so keep secrets out. */
export class AppError extends ServiceError<ErrorCode> {
  constructor(
    errorCode: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    details: Record<string, string> = {},
  ) {
    super(errorCode, errorCatalogue[errorCode], message, headers, details);
    this.name = 'AppError';
  }
}

/**
 * The one serializer: turns anything thrown while handling a request into a status and a
 * `{errorCode, message}` body (shared with the agent service).
 */
export { toErrorResponse } from '@acme/service-kit/errors';
