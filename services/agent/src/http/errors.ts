/** Every error code the agent service answers with, and its HTTP status. */
export const errorCatalogue = {
  INVALID_REQUEST: 400,
  NOT_FOUND: 404,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  NOT_READY: 503,
} as const;

export type ErrorCode = keyof typeof errorCatalogue;

/** The one error type of the agent service. */
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

/** The one serializer: anything thrown becomes a status and `{errorCode, message}`. */
export function toErrorResponse(error: unknown): {
  status: number;
  body: { errorCode: ErrorCode; message: string };
  headers: Record<string, string>;
} {
  if (error instanceof AppError) {
    return {
      status: error.status,
      body: { errorCode: error.errorCode, message: error.message },
      headers: error.headers,
    };
  }
  const e = (typeof error === 'object' && error !== null ? error : {}) as {
    statusCode?: number;
    message?: string;
  };
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  const make = (s: number, errorCode: ErrorCode, message: string) => ({
    status: s,
    body: { errorCode, message },
    headers: {},
  });
  if (status === 413) return make(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.');
  if (status === 415)
    return make(415, 'UNSUPPORTED_MEDIA_TYPE', 'The request body must be application/json.');
  if (status >= 400 && status < 500) {
    const message = e.message?.includes('JSON')
      ? 'The request body is not valid JSON.'
      : (e.message ?? 'The request is invalid.');
    return make(status, 'INVALID_REQUEST', message);
  }
  return make(500, 'INTERNAL_ERROR', 'An unexpected error occurred.');
}
