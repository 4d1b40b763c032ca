import { z } from 'zod';
import type { GenericError } from '@ory/client';

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Request Entity Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** herodot's default `message` per status. */
const DEFAULT_MESSAGE: Record<number, string> = {
  400: 'The request was malformed or contained invalid parameters',
  401: 'The request could not be authorized',
  403: 'The requested action was forbidden',
  404: 'The requested resource could not be found',
  409: 'The resource could not be created due to a conflict',
  410: 'The requested resource is no longer available because it has expired or is otherwise invalid.',
  413: 'The request body is too large',
  415: 'The request content type is not supported',
  422: 'The request was well-formed but was unable to be followed due to semantic errors',
  429: 'Too many requests',
  500: 'An internal server error occurred, please contact the system administrator',
  502: 'The upstream service could not be reached',
  503: 'The service is temporarily unable to handle the request',
};

export interface IdentityErrorInit {
  id?: string;
  reason?: string;
  message?: string;
  details?: Record<string, unknown>;
  /** Top-level fields next to `error`, e.g. `redirect_browser_to`, `use_flow_id`. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** The one error type of the identity service; serialised as Ory's herodot envelope. */
export class IdentityError extends Error {
  readonly status: number;
  readonly init: IdentityErrorInit;
  constructor(status: number, init: IdentityErrorInit = {}) {
    super(init.reason ?? init.message ?? DEFAULT_MESSAGE[status] ?? 'error');
    this.status = status;
    this.init = init;
  }

  /** The inner `error` object (also what `/self-service/errors?id=` stores). */
  content(): GenericError {
    const { id, reason, details } = this.init;
    return {
      ...(id ? { id } : {}),
      code: this.status,
      status: STATUS_TEXT[this.status] ?? 'Error',
      ...(reason ? { reason } : {}),
      ...(details ? { details } : {}),
      message: this.init.message ?? DEFAULT_MESSAGE[this.status] ?? 'error',
    };
  }

  body(): Record<string, unknown> {
    return { error: this.content(), ...(this.init.extra ?? {}) };
  }
}

/** Kratos's generic error body, as `body()` writes it (a flow-specific body may add fields). */
export const kratosErrorSchema = z.looseObject({
  error: z.looseObject({
    id: z.string().optional(),
    code: z.number().int(),
    status: z.string(),
    reason: z.string().optional(),
    message: z.string(),
  }),
});

export const errors = {
  badRequest: (reason: string, init: IdentityErrorInit = {}) => new IdentityError(400, { reason, ...init }),
  notFound: (reason = 'Unable to locate the resource') => new IdentityError(404, { reason }),
  flowNotFound: () => new IdentityError(404, { reason: 'The requested flow could not be found.' }),
  unauthorized: (reason = 'No valid session credentials found in the request.') =>
    new IdentityError(401, { reason }),
  csrf: (rejectReason: string) =>
    new IdentityError(403, {
      id: 'security_csrf_violation',
      message: 'the request was rejected to protect you from Cross-Site-Request-Forgery',
      reason:
        'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
      details: {
        docs: 'https://www.ory.sh/kratos/docs/debug/csrf',
        hint: 'The anti-CSRF cookie was found but the CSRF token was not included in the HTTP request body (csrf_token) nor in the HTTP Header (X-CSRF-Token).',
        reject_reason: rejectReason,
      },
    }),
  /** Registration while no organisation has self sign-up open (Kratos's disabled registration). */
  registrationDisabled: () =>
    new IdentityError(400, {
      id: 'self_service_flow_disabled',
      message: 'registration flow disabled',
      reason: 'Registration is not allowed because it was disabled.',
    }),
  sessionAlreadyAvailable: () =>
    new IdentityError(400, {
      id: 'session_already_available',
      message: 'you are already logged in',
      reason:
        'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?',
    }),
  aal1Required: () =>
    new IdentityError(401, {
      id: 'session_aal1_required',
      message: 'aal2 and aal3 can only be requested if a session exists already',
      reason: 'You can not requested a higher AAL (AAL2/AAL3) without an active session.',
    }),
  returnToForbidden: (to: string) =>
    new IdentityError(400, {
      id: 'self_service_flow_return_to_forbidden',
      message: 'the return_to address is not allowed',
      reason: `Requested return_to URL "${to.slice(0, 200)}" is not allowed.`,
    }),
  browserLocationChange: (to: string) =>
    new IdentityError(422, {
      id: 'browser_location_change_required',
      message: 'browser location change required',
      reason: `In order to complete this flow please redirect the browser to: ${to}`,
      extra: { redirect_browser_to: to },
    }),
  tooManyRequests: (retryAfterSec: number) =>
    new IdentityError(429, {
      reason: 'Too many failed attempts from this network. Please wait before trying again.',
      headers: { 'retry-after': String(Math.max(1, retryAfterSec)) },
    }),
  /** Self sign-up: the per-IP budget of registrations is spent. */
  tooManySignUps: (retryAfterSec: number) =>
    new IdentityError(429, {
      reason: 'Too many sign-ups from this network. Please wait before trying again.',
      headers: { 'retry-after': String(Math.max(1, retryAfterSec)) },
    }),
  /** Password hashing is at capacity: answered at once (never queued without bound), never a failed attempt. */
  overloaded: (retryAfterSec: number) =>
    new IdentityError(503, {
      id: 'service_overloaded',
      reason: 'Too many sign-ins are being processed right now. Please try again in a moment.',
      headers: { 'retry-after': String(Math.max(1, retryAfterSec)) },
    }),
  /** The process is past capacity (event-loop lag): the request was shed before any work. */
  overloadedProcess: () =>
    new IdentityError(503, {
      id: 'service_overloaded',
      reason: 'The service is busy right now. Please try again in a moment.',
    }),
  /**
   * Self sign-up: the user service, which creates the member, did not answer in time or failed. The
   * member may still be created by the call that timed out; a retry then finds the address taken.
   */
  signUpUnavailable: (retryAfterSec: number) =>
    new IdentityError(503, {
      id: 'service_unavailable',
      reason: 'Sign-up could not be completed right now. Please try again in a moment.',
      headers: { 'retry-after': String(Math.max(1, retryAfterSec)) },
    }),
  /** The database cannot be reached right now (restarting, failing over): nothing was changed. */
  databaseUnavailable: () =>
    new IdentityError(503, {
      id: 'service_unavailable',
      reason: 'The service is briefly unavailable. Please try again in a moment.',
    }),
};

export const sessionErrors = {
  aal2Required: (redirectTo: string) =>
    new IdentityError(403, {
      id: 'session_aal2_required',
      message: 'Session does not fulfill the requested Authenticator Assurance Level',
      reason:
        'An active session was found but it does not fulfill the Authenticator Assurance Level, implying that the session must first be upgraded to a higher Authenticator Assurance Level (AAL).',
      details: { redirect_browser_to: redirectTo },
      extra: { redirect_browser_to: redirectTo },
    }),
  refreshRequired: (redirectTo: string) =>
    new IdentityError(403, {
      id: 'session_refresh_required',
      message: 'The requested action was forbidden',
      reason:
        'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
      details: { redirect_browser_to: redirectTo },
      extra: { redirect_browser_to: redirectTo },
    }),
  identityMismatch: () =>
    new IdentityError(403, {
      id: 'security_identity_mismatch',
      reason: 'The flow was interrupted because the session holder does not match the identity of the flow.',
    }),
};
