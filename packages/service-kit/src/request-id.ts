import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';

/**
 * Request ids: every request gets one, honouring the caller's `X-Request-Id` when it is well formed
 * (so one id follows a sign-in through the app, identity, the authorization server and the user
 * service), else a new UUID. The id is echoed in the response header, added to every log line
 * written while the request is handled (`logMixin`), and sent on service-to-service calls
 * (`requestIdHeaders`).
 */
export const REQUEST_ID_HEADER = 'x-request-id';

/** 8 to 128 characters of letters, digits and `-_.:`: UUIDs, ULIDs, proxies' ids; nothing that could forge a log line. */
const WELL_FORMED = /^[A-Za-z0-9._:-]{8,128}$/;

const context = new AsyncLocalStorage<{ requestId: string }>();

export function isWellFormedRequestId(value: unknown): value is string {
  return typeof value === 'string' && WELL_FORMED.test(value);
}

/** The incoming id when well formed, else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  return isWellFormedRequestId(header) ? header : randomUUID();
}

/** The id of the request being handled in this async context, if any. */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

/** Headers for an outbound call made while handling a request: the same id, so logs join up. */
export function requestIdHeaders(): Record<string, string> {
  const id = currentRequestId();
  return id ? { [REQUEST_ID_HEADER]: id } : {};
}

/** Runs `fn` with `requestId` as the current request id (for work outside an HTTP request, and tests). */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return context.run({ requestId }, fn);
}

/**
 * Pino `mixin`: puts the current request id on every line logged inside a request, unless the
 * logger already carries it (Fastify's per-request logger binds it).
 */
export function logMixin(
  _merge: object,
  _level: number,
  logger?: { bindings(): Record<string, unknown> },
): Record<string, string> {
  const id = currentRequestId();
  if (!id || logger?.bindings().requestId !== undefined) return {};
  return { requestId: id };
}

/**
 * Fastify options: the id from the header (validated) or a new one, bound as `requestId` on
 * Fastify's per-request logger (its "incoming request" line is written before any hook runs).
 */
export function requestIdOptions(): Pick<
  FastifyServerOptions,
  'genReqId' | 'requestIdHeader' | 'childLoggerFactory'
> {
  return {
    requestIdHeader: false,
    genReqId: (req) => requestIdFrom(req.headers[REQUEST_ID_HEADER]),
    childLoggerFactory: (logger, bindings, opts) => logger.child({ requestId: bindings.reqId }, opts),
  };
}

const scope = Symbol('requestIdScope');
type Scoped = FastifyRequest & { [scope]?: AsyncResource };

/**
 * Echoes the id and makes it current for the whole request. The body is read from socket events,
 * which lose the async context, so the scope is entered again before validation and the handler.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header(REQUEST_ID_HEADER, req.id);
    context.run({ requestId: req.id }, () => {
      const resource = new AsyncResource('request-id');
      (req as Scoped)[scope] = resource;
      resource.runInAsyncScope(done);
    });
  });
  app.addHook('preValidation', (req, _reply, done) => {
    const resource = (req as Scoped)[scope];
    if (resource) resource.runInAsyncScope(done);
    else done();
  });
}

/** The same for a plain Node request handler (the authorization server's oidc-provider app). */
export function handleWithRequestId(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const requestId = requestIdFrom(req.headers[REQUEST_ID_HEADER]);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    context.run({ requestId }, () => handler(req, res));
  };
}
