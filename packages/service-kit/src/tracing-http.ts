// The spans of HTTP in and out of a traced process, and the W3C `traceparent` header read from every
// request and written on every call, made here rather than by OpenTelemetry's HTTP and undici
// instrumentations: measured on this machine (`BENCH_ONLY=tracing npm run bench`, its unit costs),
// those added about 56 µs of CPU to each incoming request and 100 µs to each `fetch`, several times
// the work of a light request; these record what the spans are read for, and nothing else.
//
// - An incoming request: a server span from the request's arrival to its response's end (or the
//   connection's close), its handler running in the span's context, so that the statements and
//   calls it makes are its children. Named after the
//   Fastify route when one answers it (`http.route`, set as the route's handler starts, tracing.ts).
// - An outgoing call: a client span from `fetch`'s request (undici's diagnostics channels) or Node's
//   http client (its own channels) to the end of the answer, with `traceparent` added to the request.
import { subscribe } from 'node:diagnostics_channel';
import { Server, type ClientRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  context,
  isSpanContextValid,
  propagation,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Span,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import { ChainedContext } from './chained-context.ts';
import type { StartSpan } from './recorded-span.ts';

/**
 * Writes a call's span as W3C `traceparent` (and `tracestate`) headers with `set`: the headers the
 * W3C propagator writes for a context holding the span (tracing-http.test.ts compares them), made
 * here without the context, carrier and entries the propagator's API needs per call.
 */
export function injectInto(span: Span, set: (name: string, value: string) => void): void {
  const { traceId, spanId, traceFlags, traceState } = span.spanContext();
  if (!isSpanContextValid({ traceId, spanId, traceFlags })) return;
  set('traceparent', `00-${traceId}-${spanId}-${traceFlags & TraceFlags.SAMPLED ? '01' : '00'}`);
  const state = traceState?.serialize();
  if (state) set('tracestate', state);
}

/** The host name of a Host header (its port left off), or nothing. */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bracket = header.startsWith('[') ? header.indexOf(']') : -1;
  const colon = header.indexOf(':', bracket + 1);
  return colon < 0 ? header : header.slice(0, colon);
}

/**
 * Every request a Node HTTP server of this process answers, except those `ignore` names (probes,
 * scrapes), becomes a server span, continuing the trace its `traceparent` names.
 */
export function traceIncomingRequests(startSpan: StartSpan, ignore: (url: string) => boolean): void {
  // A server's `request` event is the one place every framework's handler starts (Fastify's and
  // Koa's alike); http.Server's prototype only, so other emitters are untouched.
  const emit = Server.prototype.emit;
  const emitOn = (server: Server, args: unknown[]) => Reflect.apply(emit, server, args) as boolean;
  Server.prototype.emit = function tracedEmit(this: Server, ...args: unknown[]) {
    if (args[0] !== 'request') return emitOn(this, args);
    const [, req, res] = args as [string, IncomingMessage, ServerResponse];
    const url = req.url ?? '/';
    if (ignore(url)) return emitOn(this, args);
    // Without `traceparent` there is nothing to continue (a `tracestate` alone is ignored, as the
    // W3C propagator ignores it): the request starts a trace of its own.
    const parent =
      req.headers.traceparent === undefined
        ? ChainedContext.ROOT
        : propagation.extract(ChainedContext.ROOT, req.headers);
    const method = req.method ?? 'GET';
    const attributes: Attributes = {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      // The query string and any credential in the path are cut as the span is exported (redaction.ts).
      [ATTR_URL_PATH]: url,
      [ATTR_URL_SCHEME]: 'http',
      [ATTR_SERVER_PORT]: req.socket.localPort,
      [ATTR_NETWORK_PROTOCOL_VERSION]: req.httpVersion,
    };
    const host = hostOf(req.headers.host);
    if (host) attributes[ATTR_SERVER_ADDRESS] = host;
    if (req.socket.remoteAddress) attributes[ATTR_CLIENT_ADDRESS] = req.socket.remoteAddress;
    if (req.headers['user-agent']) attributes[ATTR_USER_AGENT_ORIGINAL] = req.headers['user-agent'];
    const span = startSpan(method, SpanKind.SERVER, attributes, parent);
    // A Fastify route names the span as its handler starts (nameFastifyRoutes in tracing.ts).
    const active = trace.setSpan(parent, span);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      if (res.headersSent || res.writableFinished) {
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      } else span.setStatus({ code: SpanStatusCode.ERROR, message: 'closed before the response' });
      span.end();
    };
    // A response's `close` comes last, after `finish` or on a connection closed before the answer.
    res.once('close', end);
    // The request's and the response's stream listeners are left unbound to this context (binding
    // costs about 12 µs an object): Fastify binds its body parsing and handler to the request's
    // async context itself, and Koa reads the body through promises, which keep it; the onResponse
    // hooks (logs and metrics) make no span. A listener on either stream runs outside the request's
    // context: a span it started would begin a trace of its own.
    return context.with(active, () => emitOn(this, args));
  };
}

/** The calls in flight, by their request object, and their spans. */
const calls = new WeakMap<object, Span>();

/** Where a call goes: its URL, host name and port. */
interface Target {
  href: string;
  hostname: string;
  port: number;
}

const targetOfUrl = (url: URL): Target => ({
  href: url.href,
  hostname: url.hostname,
  port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
});

/** The host name and port of each origin called (a process calls a few), parsed once. */
const origins = new Map<string, Target>();
const MAX_ORIGINS = 256;

/**
 * The target of an undici request: its origin (parsed once per origin) and path. A path from `/`
 * on an origin without one is the URL as written; anything else goes through the URL parser.
 */
export function undiciTarget(origin: string | URL, path: string): Target {
  if (typeof origin !== 'string' || !path.startsWith('/') || origin.endsWith('/'))
    return targetOfUrl(new URL(path, origin));
  let parsed = origins.get(origin);
  if (!parsed) {
    parsed = targetOfUrl(new URL(origin));
    // An origin that is more than scheme, host and port (a path, credentials) is parsed each time.
    if (parsed.href !== `${origin}/`) return targetOfUrl(new URL(path, origin));
    if (origins.size < MAX_ORIGINS) origins.set(origin, parsed);
  }
  return { href: origin + path, hostname: parsed.hostname, port: parsed.port };
}

function startCall(startSpan: StartSpan, request: object, method: string, target: Target): Span | undefined {
  const active = context.active();
  if (isTracingSuppressed(active)) return undefined;
  const span = startSpan(
    method,
    SpanKind.CLIENT,
    {
      [ATTR_HTTP_REQUEST_METHOD]: method,
      [ATTR_URL_FULL]: target.href,
      [ATTR_SERVER_ADDRESS]: target.hostname,
      [ATTR_SERVER_PORT]: target.port,
    },
    active,
  );
  calls.set(request, span);
  return span;
}

function answered(request: object, status: number): void {
  const span = calls.get(request);
  if (!span) return;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
}

function finished(request: object, error?: unknown): void {
  const span = calls.get(request);
  if (!span) return;
  calls.delete(request);
  if (error !== undefined)
    span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
  span.end();
}

/** undici's request as its diagnostics channels give it (Node's `fetch`). */
interface UndiciRequest {
  origin: string | URL;
  method: string;
  path: string;
  addHeader(name: string, value: string): unknown;
}

/** Where a call of Node's http client goes (its Host header holds the port; `host` does not). */
function targetOf(request: ClientRequest): Target {
  let host: unknown;
  try {
    host = request.getHeader('host');
  } catch {
    host = undefined;
  }
  return targetOfUrl(
    new URL(request.path, `${request.protocol}//${typeof host === 'string' ? host : request.host}`),
  );
}

/**
 * Every call this process makes with `fetch` (`which.undici`) or Node's http client (`which.http`),
 * inside a traced request or not, becomes a client span, and carries `traceparent`. Calls of the
 * exporter itself are not traced (it suppresses tracing while it sends).
 */
export function traceOutgoingCalls(startSpan: StartSpan, which: { http: boolean; undici: boolean }): void {
  if (which.undici) traceFetch(startSpan);
  if (which.http) traceHttpClient(startSpan);
}

function traceFetch(startSpan: StartSpan): void {
  subscribe('undici:request:create', (message) => {
    const { request } = message as { request: UndiciRequest };
    const span = startCall(startSpan, request, request.method, undiciTarget(request.origin, request.path));
    if (span) injectInto(span, (name, value) => request.addHeader(name, value));
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    answered(request, response.statusCode);
  });
  subscribe('undici:request:trailers', (message) => finished((message as { request: object }).request));
  subscribe('undici:request:error', (message) => {
    const { request, error } = message as { request: object; error: unknown };
    finished(request, error);
  });
}

// Node's http client: `created` comes before the headers are written, so the header can be added;
// the span ends when the request closes (after its answer, or on a failure).
function traceHttpClient(startSpan: StartSpan): void {
  subscribe('http.client.request.created', (message) => {
    const { request } = message as { request: ClientRequest };
    const span = startCall(startSpan, request, request.method, targetOf(request));
    if (!span) return;
    injectInto(span, (name, value) => {
      try {
        request.setHeader(name, value);
      } catch {
        // Headers given as an array are written at once: the call keeps its span, without the header.
      }
    });
    request.once('close', () => finished(request));
  });
  subscribe('http.client.response.finish', (message) => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    answered(request, response.statusCode ?? 0);
  });
  subscribe('http.client.request.error', (message) => {
    const { request, error } = message as { request: ClientRequest; error: unknown };
    finished(request, error);
  });
}
