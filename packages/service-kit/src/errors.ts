import { z } from 'zod';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '@acme/db';

/** The `{errorCode, message}` wire format of the user and agent services. */
/** The `{errorCode, message}` error body (with an error's string details beside them). */
export const errorBodySchema = z
  .object({ errorCode: z.string(), message: z.string() })
  .catchall(z.string())
  .meta({ description: 'An error: a stable code, a message for people, and string details.' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/**
 * Base of each service's one error type (`AppError`, which fixes the status from its catalogue).
 * Its message is shown to callers, so keep secrets out.
 */
export class ServiceError<Code extends string = string> extends Error {
  readonly errorCode: Code;
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Extra fields of the body beside errorCode and message (e.g. a link the client shows). */
  readonly details: Record<string, string>;

  constructor(
    errorCode: Code,
    status: number,
    message: string,
    headers: Record<string, string> = {},
    details: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ServiceError';
    this.errorCode = errorCode;
    this.status = status;
    this.headers = headers;
    this.details = details;
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
 * oversized bodies) keep their status; a database that cannot be reached right now is a 503 with
 * Retry-After; everything else unknown is an internal error. Every catalogue using it must contain
 * the framework codes used here (`INVALID_REQUEST`, `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE`,
 * `SERVICE_UNAVAILABLE`, `INTERNAL_ERROR`).
 */
export function toErrorResponse(error: unknown): {
  status: number;
  body: ErrorBody;
  headers: Record<string, string>;
} {
  if (error instanceof ServiceError) {
    return {
      status: error.status,
      body: { ...error.details, errorCode: error.errorCode, message: error.message },
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
  if (isDatabaseUnavailable(error)) {
    return {
      ...framework(
        503,
        'SERVICE_UNAVAILABLE',
        'The service is briefly unavailable. Please try again in a moment.',
      ),
      headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    };
  }
  return framework(500, 'INTERNAL_ERROR', 'An unexpected error occurred.');
}

function framework(status: number, errorCode: string, message: string) {
  return { status, body: { errorCode, message }, headers: {} };
}
