import { ServiceError } from '@acme/service-kit/errors';

/** Every error code the agent service answers with, and its HTTP status. */
const errorCatalogue = {
  INVALID_REQUEST: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  /** The Microsoft identity platform did not answer with its keys. */
  UPSTREAM_ERROR: 502,
  NOT_READY: 503,
  /** The database cannot be reached right now (Retry-After): nothing was changed. */
  SERVICE_UNAVAILABLE: 503,
  /** The process is past capacity (event-loop lag): the request was shed before any work (Retry-After). */
  OVERLOADED: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

/** The one error type of the agent service; `toErrorResponse` is its one serializer. */
export class AppError extends ServiceError<ErrorCode> {
  constructor(errorCode: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(errorCode, errorCatalogue[errorCode], message, headers);
    this.name = 'AppError';
  }
}

/** The one serializer: anything thrown becomes a status and `{errorCode, message}`. */
export { toErrorResponse } from '@acme/service-kit/errors';
