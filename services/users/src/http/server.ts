import { shedWhenOverloaded, type OverloadConfig } from '@acme/service-kit/overload';
import Fastify, { LogController } from 'fastify';
import { registerRequestId, requestIdOptions } from '@acme/service-kit/request-id';
import { hangUpWhenClosing } from '@acme/service-kit/shutdown';
import { proxyTrust, type TrustProxy } from '@acme/service-kit/proxy-trust';
import { refusedInput } from '@acme/service-kit/input';
import { registerOpenApi, type OpenApiOptions } from '@acme/service-kit/openapi';
import { errorBodySchema } from '@acme/service-kit/errors';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { AppError, toErrorResponse } from './errors.ts';

/** The documents' `info.version`: the wire shapes' version, not the release's. */
const OPENAPI_VERSION = '1';

const overloaded = () =>
  new AppError('OVERLOADED', 'The service is busy right now. Please try again in a moment.');

export interface HttpServerOptions {
  logger: Logger;
  bodyLimit: number;
  trustProxy: TrustProxy;
  overload: OverloadConfig;
  /** This listener's OpenAPI document (`GET /openapi.json`); every route declares its schemas. */
  openapi: Omit<OpenApiOptions, 'errorSchema' | 'version'>;
  /**
   * An API under a path with its own error schema (SCIM) answers the router's refusals in it: the
   * response for `url`, or undefined for the usual `{errorCode, message}`.
   */
  frameworkErrorFor?: (
    url: string,
    error: AppError,
  ) => { status: number; headers: Record<string, string>; body: unknown } | undefined;
}

/**
 * A Fastify instance with the user service's error handling: every failure, including the
 * framework's own (malformed JSON, content type, body size, unknown route), answers
 * `{errorCode, message}`. Request logs carry method, path without query string, and status only.
 */
export function createHttpServer(options: HttpServerOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit,
    trustProxy: proxyTrust(options.trustProxy),
    return503OnClosing: true,
    ...requestIdOptions(),
    // The router's own refusals (a path parameter over `maxParamLength`, a URL it cannot decode)
    // answer in our shape too, without echoing the path.
    frameworkErrors: (error, request, reply) => {
      const refusal = frameworkError(error);
      const { status, body, headers } =
        options.frameworkErrorFor?.(request.url, refusal) ?? toErrorResponse(refusal);
      void (reply as FastifyReply).code(status).headers(headers).send(body);
    },
  });
  registerRequestId(app);
  registerOpenApi(app, { ...options.openapi, version: OPENAPI_VERSION, errorSchema: errorBodySchema });
  hangUpWhenClosing(app);
  // Past capacity, new requests get a quick 503 with Retry-After; /health/* is always answered.
  shedWhenOverloaded(app, options.overload, () => toErrorResponse(overloaded()).body);

  // JSON only: a text/plain body is a wrong content type, not a string to validate.
  app.removeContentTypeParser('text/plain');

  // NUL / lone surrogates / prototype keys anywhere in the body, query or path: a 400 before any
  // handler.
  app.addHook('preHandler', async (request) => {
    const refused = refusedInput(request.body, request.query, request.params);
    if (refused) throw new AppError('INVALID_REQUEST', refused);
  });

  app.setErrorHandler((error, request, reply) => {
    const { status, body, headers } = toErrorResponse(error);
    if (status >= 500) request.log.error({ err: error, path: pathOf(request.url) }, 'request failed');
    return reply.code(status).headers(headers).send(body);
  });

  app.setNotFoundHandler((request, reply) => {
    const { status, body } = toErrorResponse(
      new AppError('NOT_FOUND', `No route for ${request.method} ${pathOf(request.url)}.`),
    );
    return reply.code(status).send(body);
  });

  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        path: pathOf(request.url),
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  return app;
}

function frameworkError(error: { code?: string }): AppError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError('URI_TOO_LONG', 'A path parameter is too long (at most 100 characters).');
  }
  return new AppError('INVALID_REQUEST', 'The request URL is malformed.');
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}
