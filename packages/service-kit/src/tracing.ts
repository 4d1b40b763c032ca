// OpenTelemetry tracing of one process: spans of incoming HTTP requests (Node's http server, named
// by their Fastify route), outgoing calls (fetch, i.e. undici, and Node's http client) and the
// PostgreSQL statements of each request, exported over OTLP/HTTP, with the W3C `traceparent` header
// read from every request and written on every call so that one sign-in is one trace across the
// services (the HTTP spans: tracing-http.ts). Loaded only when an endpoint is set (tracing-gate.ts, through the preload tracing.mjs):
// a process without one never loads the SDK.
import { subscribe } from 'node:diagnostics_channel';
import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Link,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_HTTP_ROUTE,
  ATTR_SERVICE_NAME,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { z } from 'zod';
import { QUERY_CHANNEL, type QueryMessage } from '@acme/db/query-channel';
import { ConfigError } from './config.ts';
import { redactAttributes } from './redaction.ts';
import { traceIncomingRequests, traceOutgoingCalls } from './tracing-http.ts';
import { beforeDrainedExit } from './shutdown.ts';
import { EncodingSpanProcessor } from './span-export.ts';
import { statementSpanWriter } from './otlp-protobuf.ts';
import { RandomIds, spanRecorder, TIME_ORIGIN, type StartSpan } from './recorded-span.ts';

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const unsetIfEmpty = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** The standard OpenTelemetry variables this process reads (the SDK's own names and meanings). */
export const tracingEnvSchema = z.object({
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .preprocess(unsetIfEmpty, z.url().optional())
    .describe(
      'Base URL of an OTLP/HTTP collector (spans go to its /v1/traces); unset, tracing is off and the SDK is not loaded',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .preprocess(unsetIfEmpty, z.url().optional())
    .describe('Full URL spans are posted to, instead of OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces'),
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .preprocess(unsetIfEmpty, z.enum(['http/protobuf', 'http/json']).default('http/protobuf'))
    .describe('How spans are encoded: http/protobuf (the default) or http/json (gRPC is not offered)'),
  OTEL_EXPORTER_OTLP_HEADERS: z
    .preprocess(unsetIfEmpty, z.string().optional())
    .describe('Headers sent with every export, `name=value` comma-separated (e.g. a collector API key)')
    .meta({ secret: true }),
  OTEL_SERVICE_NAME: z
    .preprocess(unsetIfEmpty, z.string().max(200).optional())
    .describe(
      "The spans' service.name; default the part's name (identity, oauth2, users, agent, account; `system` in npm start)",
    ),
  OTEL_TRACES_SAMPLER: z
    .preprocess(unsetIfEmpty, z.enum(SAMPLERS).default('parentbased_always_on'))
    .describe('Which requests are traced: always_on, always_off, traceidratio or their parentbased_ forms'),
  OTEL_TRACES_SAMPLER_ARG: z
    .preprocess(unsetIfEmpty, z.coerce.number().min(0).max(1).default(1))
    .describe('The ratio of the traceidratio samplers, 0 to 1'),
  OTEL_NODE_ENABLED_INSTRUMENTATIONS: z
    .preprocess(unsetIfEmpty, z.string().max(1000).optional())
    .describe(
      'Only these instrumentations, comma-separated: http (requests in, Node http client calls out), undici (fetch), pg (statements), fastify (route names), koa (none of its own); default all',
    ),
  OTEL_NODE_DISABLED_INSTRUMENTATIONS: z
    .preprocess(unsetIfEmpty, z.string().max(1000).optional())
    .describe(
      'Instrumentations switched off, comma-separated, after OTEL_NODE_ENABLED_INSTRUMENTATIONS (e.g. pg: no statement spans and no statement timing); other names change nothing',
    ),
  OTEL_BSP_SCHEDULE_DELAY: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(600_000).default(5000))
    .describe('The longest a finished span waits before it is sent, in milliseconds'),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(100_000).default(512))
    .describe('Finished spans that are sent at once, without waiting for the delay'),
  OTEL_BSP_MAX_QUEUE_SIZE: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(1_000_000).default(2048))
    .describe('Finished spans kept while the collector is slow or away; more are dropped'),
  OTEL_EXPORTER_OTLP_TIMEOUT: z
    .preprocess(unsetIfEmpty, z.coerce.number().int().min(1).max(600_000).default(10_000))
    .describe("One export attempt's time limit, in milliseconds (failed attempts are retried four times)"),
});

export type TracingSettings = z.infer<typeof tracingEnvSchema>;

/** The settings from the environment; a malformed one stops the process, naming it (never its value). */
export function tracingSettings(env: NodeJS.ProcessEnv): TracingSettings {
  const parsed = tracingEnvSchema.safeParse(env);
  if (!parsed.success) {
    const names = [...new Set(parsed.error.issues.map((i) => i.path.join('.')))].join(', ');
    throw new ConfigError(`Invalid tracing settings: ${names}`);
  }
  return parsed.data;
}

/**
 * The instrumentations of this process, by the names OpenTelemetry's Node packages give theirs
 * (`@opentelemetry/instrumentation-<name>`), so that the SDK's variables choose among them: `http`
 * the spans of requests in and of Node http client calls out, `undici` of `fetch` calls, `pg` of
 * statements, `fastify` route names on request spans. `koa` (oidc-provider's framework) has no
 * spans of its own here and is accepted as a name.
 */
export const INSTRUMENTATIONS = ['http', 'undici', 'pg', 'fastify', 'koa'] as const;
export type Instrumentation = (typeof INSTRUMENTATIONS)[number];

const namesIn = (list: string | undefined) =>
  new Set(
    (list ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
  );

/**
 * The instrumentations switched on: those OTEL_NODE_ENABLED_INSTRUMENTATIONS lists (all when it is
 * unset), less those OTEL_NODE_DISABLED_INSTRUMENTATIONS lists (a name in both is off), as the
 * SDK's Node packages read them. A name of an instrumentation this process does not have changes
 * nothing (lists written for the SDK's packages name `fs`, `dns`, …).
 */
export function instrumentationsOn(settings: TracingSettings): Set<Instrumentation> {
  const enabled = namesIn(settings.OTEL_NODE_ENABLED_INSTRUMENTATIONS);
  const disabled = namesIn(settings.OTEL_NODE_DISABLED_INSTRUMENTATIONS);
  return new Set(
    INSTRUMENTATIONS.filter(
      (name) =>
        (settings.OTEL_NODE_ENABLED_INSTRUMENTATIONS === undefined || enabled.has(name)) &&
        !disabled.has(name),
    ),
  );
}

/** Each entry point's part, from its path, for the default service name. */
const PARTS: [RegExp, string][] = [
  [/[/\\]services[/\\](identity|oauth2|users|agent)[/\\]/, '$1'],
  [/[/\\]apps[/\\]account[/\\]/, 'account'],
  [/[/\\]dev[/\\](src|dist)[/\\]/, 'stand-ins'],
];

/**
 * The service name of a process started on `entry`: the part it runs; `system` for the one-process
 * system of `npm start`, where every service shares one process (and one service name).
 */
export function defaultServiceName(entry: string | undefined): string {
  for (const [pattern, name] of PARTS) {
    const match = pattern.exec(entry ?? '');
    if (match) return name.replace('$1', match[1] ?? '');
  }
  return 'system';
}

function samplerOf(settings: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(settings.OTEL_TRACES_SAMPLER_ARG);
  switch (settings.OTEL_TRACES_SAMPLER) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}

/** `name=value,…` (values URL-encoded, as the OpenTelemetry specification writes them). */
function exportHeaders(raw: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

function tracesUrl(settings: TracingSettings): string {
  if (settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${(settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/+$/, '')}/v1/traces`;
}

/** The SDK's batch processor and OTLP/HTTP JSON exporter, behind the redaction. */
async function jsonExport(settings: TracingSettings): Promise<SpanProcessor> {
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const exporter = new OTLPTraceExporter({
    url: tracesUrl(settings),
    headers: exportHeaders(settings.OTEL_EXPORTER_OTLP_HEADERS),
    timeoutMillis: settings.OTEL_EXPORTER_OTLP_TIMEOUT,
  });
  return new BatchSpanProcessor(new RedactingExporter(exporter), {
    scheduledDelayMillis: settings.OTEL_BSP_SCHEDULE_DELAY,
    maxExportBatchSize: settings.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
    maxQueueSize: settings.OTEL_BSP_MAX_QUEUE_SIZE,
  });
}

const redactLinks = (links: Link[]): Link[] =>
  links.map((l) => (l.attributes ? { ...l, attributes: redactAttributes(l.attributes) } : l));

/** A span as it leaves the process: its attributes, its events' and its links' redacted (redaction.ts). */
function redactSpan(span: ReadableSpan): ReadableSpan {
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => span.spanContext(),
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: redactAttributes(span.attributes),
    links: redactLinks(span.links),
    events: span.events.map((e) => (e.attributes ? { ...e, attributes: redactAttributes(e.attributes) } : e)),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

/** The one place spans pass before export: every exporter is wrapped in this. */
export class RedactingExporter implements SpanExporter {
  private readonly inner: SpanExporter;
  constructor(inner: SpanExporter) {
    this.inner = inner;
  }
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans.map(redactSpan), done);
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/**
 * Names each HTTP server span after its Fastify route (`http.route`, and the span name `POST
 * /self-service/login`), from the channel Fastify publishes as it calls a route's handler: one
 * message per request, in the request's context, whose active span is the request's server span
 * (its statements' and calls' spans are never made active). Fastify's own instrumentation wrapped
 * every hook of every plugin instead, which cost the identity service about 7 % of its CPU under
 * load for spans we dropped anyway.
 */
function nameFastifyRoutes(): void {
  subscribe('tracing:fastify.request.handler:start', (message) => {
    const { route, request } = message as { route?: { url?: unknown }; request?: { method?: unknown } };
    const span = trace.getSpan(context.active()) as (Span & { kind?: SpanKind }) | undefined;
    if (typeof route?.url !== 'string' || span?.kind !== SpanKind.SERVER) return;
    span.setAttribute(ATTR_HTTP_ROUTE, route.url);
    if (typeof request?.method === 'string') span.updateName(`${request.method} ${route.url}`);
  });
}

/** The instrumentation scopes of HTTP requests' and calls' spans, and of statements' spans. */
const HTTP_SCOPE = '@acme/service-kit';
const STATEMENT_SCOPE = '@acme/db';

/** The commands most statements start with, found without a match array and an upper-cased copy. */
const COMMON_COMMANDS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'WITH', 'BEGIN', 'COMMIT', 'ROLLBACK'];

/** Whether a character code is a word character (`\w`: letters, digits, underscore) or white space. */
const isWordCode = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
const isSpaceCode = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);

/** Whether `sql` holds the word `word` (upper case letters) at `at`, in any case. */
function wordAt(sql: string, at: number, word: string): boolean {
  for (let i = 0; i < word.length; i++)
    if ((sql.charCodeAt(at + i) | 0x20) !== (word.charCodeAt(i) | 0x20)) return false;
  return !isWordCode(sql.charCodeAt(at + word.length));
}

/** The statement's command (`SELECT`, `INSERT`, `BEGIN`, …): the span's name. */
export function commandOf(sql: string): string {
  let at = 0;
  while (at < sql.length && isSpaceCode(sql.charCodeAt(at))) at++;
  for (const command of COMMON_COMMANDS) if (wordAt(sql, at, command)) return command;
  return /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
}

/** A finished statement, its parent the request's span: how it becomes a span. */
type StatementWriter = (parent: Span, message: QueryMessage, endedAt: number) => void;

const statementAttributes = (command: string, sql: string): Attributes => ({
  [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
  [ATTR_DB_OPERATION_NAME]: command,
  [ATTR_DB_QUERY_TEXT]: sql,
});

/** The statement as an SDK span (exported through the SDK's processor). */
function sdkStatements(tracer: Tracer): StatementWriter {
  // The parent is the active context's span.
  return (_parent, { sql, durationMs, failed }, endedAt) => {
    const command = commandOf(sql);
    const span = tracer.startSpan(
      command,
      {
        kind: SpanKind.CLIENT,
        startTime: endedAt - durationMs,
        attributes: statementAttributes(command, sql),
      },
      context.active(),
    );
    if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(endedAt);
  };
}

/**
 * The statement written straight into the export buffer: no span or attribute object is made for
 * it (otlp-protobuf.ts writes its attributes' keys once).
 */
function directStatements(processor: EncodingSpanProcessor, ids: RandomIds): StatementWriter {
  const write = statementSpanWriter(
    ATTR_DB_SYSTEM_NAME,
    DB_SYSTEM_NAME_VALUE_POSTGRESQL,
    ATTR_DB_OPERATION_NAME,
    ATTR_DB_QUERY_TEXT,
  );
  // Each statement's span id, written here and copied out as the span is encoded (synchronously).
  const ownId = new Uint8Array(8);
  return (parent, { sql, durationMs, failed }, endedAt) => {
    const spanContext = parent.spanContext();
    const writer = processor.bufferFor(STATEMENT_SCOPE, spanContext.traceFlags);
    if (!writer) return;
    const endMs = TIME_ORIGIN + endedAt;
    write(writer, spanContext, ids.fill(ownId), commandOf(sql), sql, endMs - durationMs, endMs, failed);
    processor.added();
  };
}

/** HTTP spans as the SDK's spans (the JSON way out, through the SDK's processor). */
const sdkSpans =
  (tracer: Tracer): StartSpan =>
  (name, kind, attributes, parent) =>
    tracer.startSpan(name, { kind, attributes }, parent);

/**
 * Each PostgreSQL statement a traced request ran becomes a span of that request (its command as
 * name, its text with `$n` placeholders, never the values), from the channel the database package
 * publishes on as each statement ends (query-channel.ts): one span per statement and nothing more.
 * The PostgreSQL instrumentation it replaces wrapped every query and pool checkout in promises,
 * callbacks and connection-count bookkeeping, the largest part of tracing's cost per query. A
 * statement outside a traced request (the mail outbox's polling, timers) is no trace of its own.
 */
function traceQueries(write: StatementWriter): void {
  subscribe(QUERY_CHANNEL, (message) => {
    const parent = trace.getSpan(context.active());
    if (parent?.isRecording()) write(parent, message as QueryMessage, performance.now());
  });
}

/** Liveness and readiness probes and metric scrapes: frequent, and no part of any user's request. */
const PROBE_PATH = /^\/(health\/|metrics(\?|$))/;

export interface RunningTracing {
  serviceName: string;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process, before its entry point starts any server (the preload
 * `--import …/tracing.mjs` runs it first). Spans are batched and posted in the background.
 */
export async function startTracing(
  settings: TracingSettings,
  entry: string | undefined,
): Promise<RunningTracing> {
  const serviceName = settings.OTEL_SERVICE_NAME ?? defaultServiceName(entry);
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName });
  // Protobuf (the default): each span encoded as it ends (span-export.ts); JSON: the SDK's own.
  const encoding =
    settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/protobuf'
      ? new EncodingSpanProcessor({
          url: tracesUrl(settings),
          headers: exportHeaders(settings.OTEL_EXPORTER_OTLP_HEADERS),
          resource: resource.attributes,
          scheduledDelayMs: settings.OTEL_BSP_SCHEDULE_DELAY,
          maxExportBatchSize: settings.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
          maxQueueSize: settings.OTEL_BSP_MAX_QUEUE_SIZE,
          timeoutMs: settings.OTEL_EXPORTER_OTLP_TIMEOUT,
        })
      : undefined;
  const sampler = samplerOf(settings);
  const provider = new NodeTracerProvider({
    resource,
    sampler,
    spanProcessors: [encoding ?? (await jsonExport(settings))],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // Protobuf: HTTP spans recorded without SDK span objects (recorded-span.ts), statements written
  // directly; JSON: both made by the SDK's tracers.
  const ids = new RandomIds();
  const startSpan = encoding
    ? spanRecorder(sampler, (span) => encoding.writeDirect(HTTP_SCOPE, span), ids)
    : sdkSpans(provider.getTracer(HTTP_SCOPE));
  const on = instrumentationsOn(settings);
  if (on.has('http')) traceIncomingRequests(startSpan, (url) => PROBE_PATH.test(url));
  traceOutgoingCalls(startSpan, { http: on.has('http'), undici: on.has('undici') });
  if (on.has('fastify')) nameFastifyRoutes();
  // No Koa instrumentation: oidc-provider routes without @koa/router, so it made no span of its own
  // (only one per middleware layer, which were dropped), yet wrapped every layer of every request.
  // Without `pg` nobody subscribes to the statements' channel: the database package then neither
  // times nor publishes them (query-channel.ts).
  if (on.has('pg'))
    traceQueries(
      encoding ? directStatements(encoding, ids) : sdkStatements(provider.getTracer(STATEMENT_SCOPE)),
    );
  const shutdown = () => provider.shutdown().catch(() => undefined);
  // The last batch goes out before the process ends: after a drain (which exits explicitly), or
  // when nothing is left to do.
  beforeDrainedExit(shutdown);
  process.once('beforeExit', () => void shutdown());
  return { serviceName, shutdown };
}
