import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '@acme/db';
import { observeRequest, type ServiceMetrics } from '@acme/service-kit/metrics';
import { errorHeaders, OAuth2Error, toOAuth2Body } from '../errors.ts';

/** `ctx.state` key: oidc-provider answered 500 because the database could not be reached. */
export const DATABASE_UNAVAILABLE = 'databaseUnavailable';

/** Replaces the answer with the 503 (and Retry-After) of a database that is away for now. */
function unavailable(ctx: Parameters<Middleware>[0]): void {
  const err = OAuth2Error.unavailable();
  ctx.status = err.status;
  ctx.type = 'application/json';
  ctx.set({ ...errorHeaders(err), 'Cache-Control': 'no-store' });
  ctx.body = toOAuth2Body(err);
}

/**
 * Outermost middleware of the public app: security headers, a request log line without query
 * strings (they carry codes and challenges), OAuth2-shaped 404s, and a last-resort 500 that never
 * leaks internals.
 */
export function publicHttp(
  logger: Logger,
  metrics?: ServiceMetrics,
  knownPaths?: ReadonlySet<string>,
): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    try {
      await next();
      if (ctx.status === 500 && ctx.state[DATABASE_UNAVAILABLE] === true) unavailable(ctx);
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: 'not_found', error_description: 'The requested resource could not be found.' };
      }
    } catch (err) {
      if (isDatabaseUnavailable(err)) {
        unavailable(ctx);
        return;
      }
      logger.error({ err: { message: (err as Error).message } }, 'unhandled public error');
      ctx.status = 500;
      ctx.type = 'application/json';
      ctx.body = { error: 'server_error', error_description: 'The server encountered an unexpected error.' };
    } finally {
      if (metrics) {
        // Label by path only for the server's own endpoints: any other URL is `unmatched`.
        const route = knownPaths?.has(ctx.path) ? ctx.path : 'unmatched';
        observeRequest(
          metrics,
          { listener: 'public', method: ctx.method, route, status: ctx.status },
          (performance.now() - started) / 1000,
        );
      }
      logger.debug(
        {
          method: ctx.method,
          path: ctx.path,
          status: ctx.status,
          ms: Math.round(performance.now() - started),
        },
        'request',
      );
    }
  };
}
