/** Every error code the user service answers with, and its HTTP status. */
export const errorCatalogue = {
  INVALID_REQUEST: 400,
  INVALID_EMAIL: 400,
  EMAIL_DOMAIN_MISMATCH: 400,
  IDENTITY_REJECTED: 400,
  INVALID_CODE: 400,
  INVALID_STATE: 400,
  GIT_AUTH_FAILED: 400,
  UNAUTHENTICATED: 401,
  SECOND_FACTOR_REQUIRED: 403,
  SESSION_MISMATCH: 403,
  USER_NOT_LINKED: 403,
  NOT_FOUND: 404,
  ORGANISATION_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  CONSENT_REQUEST_NOT_FOUND: 404,
  LOGOUT_REQUEST_NOT_FOUND: 404,
  INVITATION_NOT_FOUND: 404,
  DOMAIN_TAKEN: 409,
  USER_EXISTS: 409,
  INVITATION_ACCEPTED: 409,
  TERMS_VERSION_OUTDATED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  UPSTREAM_ERROR: 502,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

export interface ErrorBody {
  errorCode: string;
  message: string;
}

/** The one error type of the user service. Its message is shown to callers, so keep secrets out. */
export class AppError extends Error {
  readonly errorCode: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(errorCode: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.errorCode = errorCode;
    this.status = errorCatalogue[errorCode];
    this.headers = headers;
  }
}

interface FrameworkError {
  statusCode?: number;
  code?: string;
  message?: string;
}

/**
 * The one serializer: turns anything thrown while handling a request into a status and a
 * `{errorCode, message}` body. Framework errors below 500 (malformed JSON, wrong content type,
 * oversized bodies) keep their status; everything else unknown is an internal error.
 */
export function toErrorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
} {
  if (error instanceof AppError) {
    return {
      status: error.status,
      body: { errorCode: error.errorCode, message: error.message },
      headers: error.headers,
    };
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as FrameworkError;
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 413) return framework(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (status === 415)
    return framework(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json.');
  if (status >= 400 && status < 500) {
    const message =
      e.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || e.message?.includes('JSON')
        ? 'The request body is not valid JSON.'
        : (e.message ?? 'The request is invalid.');
    return framework(status, 'INVALID_REQUEST', message);
  }
  return framework(500, 'INTERNAL_ERROR', 'An unexpected error occurred.');
}

function framework(status: number, errorCode: ErrorCode, message: string) {
  return { status, body: { errorCode, message }, headers: {} };
}
