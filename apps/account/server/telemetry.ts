import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServiceLogger, requestSummary } from '@acme/service-kit/logging';
import { createServiceMetrics, observeRequest, type ServiceMetrics } from '@acme/service-kit/metrics';
import { currentRequestId, handleWithRequestId } from '@acme/service-kit/request-id';

/**
 * The account app server's logs and metrics, as the services have them: JSON lines with the
 * request id of each request (the caller's `X-Request-Id` when well formed, else a new one, echoed
 * in the response), never a query string; `http_request_duration_seconds` per application.
 */
type Logger = ReturnType<typeof createServiceLogger>;

export interface AccountTelemetry {
  /** Undefined: no request lines (tests, `npm start` at its quiet level still logs warnings). */
  logger: Logger | undefined;
  metrics: ServiceMetrics;
}

export function createAccountTelemetry(options: {
  logLevel: string;
  logger?: Logger | false;
}): AccountTelemetry {
  const logger =
    options.logger === false
      ? undefined
      : (options.logger ?? createServiceLogger('account', options.logLevel));
  return { logger, metrics: createServiceMetrics('account') };
}

/**
 * The route label of a request: a few fixed patterns, never the raw path, so the label set stays
 * bounded whatever a client asks for.
 */
export function routeOf(pathname: string): string {
  if (pathname === '/account/runtime-config.js') return '/account/runtime-config.js';
  if (pathname.startsWith('/account/assets/')) return '/account/assets/*';
  if (pathname === '/account' || pathname.startsWith('/account/')) return '/account/*';
  return 'other';
}

/** Wraps one application's request handler: request id, one log line and one timing per request. */
export function instrumentHandler(
  telemetry: AccountTelemetry,
  application: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return handleWithRequestId((req, res) => {
    const started = process.hrtime.bigint();
    // 'finish' fires outside the request's async context: the id is taken now.
    const requestId = currentRequestId();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const pathname = (req.url ?? '/').split('?')[0]!;
      observeRequest(
        telemetry.metrics,
        {
          listener: application,
          method: req.method ?? 'GET',
          route: routeOf(pathname),
          status: res.statusCode,
        },
        seconds,
      );
      telemetry.logger?.info(
        {
          req: requestSummary({ method: req.method ?? 'GET', url: pathname, ip: req.socket.remoteAddress }),
          res: { statusCode: res.statusCode },
          responseTime: Math.round(seconds * 1000),
          application,
          requestId,
        },
        'request completed',
      );
    });
    handler(req, res);
  });
}
