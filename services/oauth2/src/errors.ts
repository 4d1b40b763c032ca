import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '@acme/db';

const UNAVAILABLE_DESCRIPTION = 'The server is briefly unavailable; retry after the time in Retry-After.';

/** Headers of an answer with `err`: Retry-After when it is a temporary unavailability. */
export function errorHeaders(err: OAuth2Error): Record<string, string> {
  return err.status === 503 ? { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) } : {};
}

/**
 * The one error type of the admin API, serialised in the OAuth2 shape
 * `{error, error_description}` (plus `redirect_to` for Hydra's 410 "already handled").
 */
export class OAuth2Error extends Error {
  readonly status: number;
  readonly error: string;
  readonly description: string;
  readonly redirectTo: string | undefined;

  constructor(status: number, error: string, description: string, redirectTo?: string) {
    super(description);
    this.name = 'OAuth2Error';
    this.status = status;
    this.error = error;
    this.description = description;
    this.redirectTo = redirectTo;
  }

  static invalidRequest(description: string): OAuth2Error {
    return new OAuth2Error(400, 'invalid_request', description);
  }

  static notFound(description = 'Unable to locate the requested resource'): OAuth2Error {
    return new OAuth2Error(404, 'not_found', description);
  }

  /** Hydra answers 410 with `{redirect_to}` for a challenge that was already handled. */
  static alreadyHandled(redirectTo: string): OAuth2Error {
    return new OAuth2Error(
      410,
      'request_already_handled',
      'The request has already been handled.',
      redirectTo,
    );
  }

  /** The database cannot be reached right now (answered with Retry-After): nothing was changed. */
  static unavailable(): OAuth2Error {
    return new OAuth2Error(503, 'temporarily_unavailable', UNAVAILABLE_DESCRIPTION);
  }

  static server(): OAuth2Error {
    return new OAuth2Error(500, 'server_error', 'The server encountered an unexpected error.');
  }
}

export interface OAuth2ErrorBody {
  error: string;
  error_description: string;
  redirect_to?: string;
}

export function toOAuth2Body(err: OAuth2Error): OAuth2ErrorBody {
  return {
    error: err.error,
    error_description: err.description,
    ...(err.redirectTo ? { redirect_to: err.redirectTo } : {}),
  };
}

/** Maps any thrown value (Fastify validation, body parsing, bugs) to an OAuth2Error. */
export function asOAuth2Error(err: unknown): OAuth2Error {
  if (err instanceof OAuth2Error) return err;
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 404) return OAuth2Error.notFound();
    if (status === 413) return new OAuth2Error(413, 'invalid_request', 'The request body is too large.');
    if (status === 415)
      return new OAuth2Error(415, 'invalid_request', 'The request content type is not supported.');
    return OAuth2Error.invalidRequest('The request is malformed or contains invalid parameters.');
  }
  if (isDatabaseUnavailable(err)) return OAuth2Error.unavailable();
  return OAuth2Error.server();
}

/** Answers an OAuth2 error from a Koa middleware on the public port (`{error, error_description}`). */
export function refuseInKoa(
  ctx: Parameters<import('koa').Middleware>[0],
  status: number,
  error: string,
  description: string,
): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { error, error_description: description };
}
