// OpenTelemetry tracing of one process: spans of incoming HTTP requests (Node's http server, the
// Fastify routes, oidc-provider's Koa middleware), outgoing calls (fetch, i.e. undici, and Node's
// http client) and PostgreSQL queries, exported over OTLP/HTTP, with the W3C `traceparent` header
// read from every request and written on every call so that one sign-in is one trace across the
// services. Loaded only when an endpoint is set (tracing-gate.ts, through the preload tracing.mjs):
// a process without one never loads the SDK.
import { register } from 'node:module';
import {
  context,
  INVALID_SPAN_CONTEXT,
  trace,
  type Link,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { FastifyInstrumentation } from '@opentelemetry/instrumentation-fastify';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { KoaInstrumentation } from '@opentelemetry/instrumentation-koa';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
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
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { z } from 'zod';
import { ConfigError } from './config.ts';
import { redactAttributes } from './redaction.ts';
import { beforeDrainedExit } from './shutdown.ts';

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

async function otlpExporter(settings: TracingSettings): Promise<SpanExporter> {
  const options = { url: tracesUrl(settings), headers: exportHeaders(settings.OTEL_EXPORTER_OTLP_HEADERS) };
  if (settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(options);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(options);
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
 * The tracer provider of an instrumentation that opens a span for every middleware layer it runs
 * (Fastify: every hook of every plugin; Koa: every middleware of oidc-provider; `middleware - …`):
 * those start no span of their own, and what runs inside them stays in the request's span. A
 * refresh grant crossing three services made 53 spans, 25 of them Fastify hooks and 11 Koa layers;
 * the route spans (Fastify's handlers, Koa routers') remain.
 */
function withoutLayerSpans(provider: TracerProvider): TracerProvider {
  return {
    getTracer(name, version, options) {
      const tracer = provider.getTracer(name, version, options);
      return {
        startSpan(spanName, spanOptions, ctx) {
          if (!spanName.startsWith('middleware - ')) return tracer.startSpan(spanName, spanOptions, ctx);
          return trace.wrapSpanContext(trace.getSpanContext(ctx ?? context.active()) ?? INVALID_SPAN_CONTEXT);
        },
        startActiveSpan: tracer.startActiveSpan.bind(tracer) as Tracer['startActiveSpan'],
      };
    },
  };
}

/** Liveness and readiness probes and metric scrapes: frequent, and no part of any user's request. */
const PROBE_PATH = /^\/(health\/|metrics(\?|$))/;

/**
 * Modules whose ES-module imports the loader hook wraps, so the instrumentations can patch them
 * (CommonJS `require`s are patched without it). Only these: wrapping every module costs start-up.
 */
const HOOKED_MODULES = ['http', 'https', 'node:http', 'node:https', 'fastify', 'koa', 'pg', 'pg-pool'];

export interface RunningTracing {
  serviceName: string;
  /** Exports what is still buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing for this process: must run before the instrumented modules are imported (the
 * preload `--import …/tracing.mjs` does). Spans are batched and posted in the background.
 */
export async function startTracing(
  settings: TracingSettings,
  entry: string | undefined,
): Promise<RunningTracing> {
  register('import-in-the-middle/hook.mjs', import.meta.url, { data: { include: HOOKED_MODULES } });
  const serviceName = settings.OTEL_SERVICE_NAME ?? defaultServiceName(entry);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }),
    sampler: samplerOf(settings),
    spanProcessors: [new BatchSpanProcessor(new RedactingExporter(await otlpExporter(settings)))],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  // Each instrumentation enables itself on construction, with the provider registered above.
  new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => PROBE_PATH.test(req.url ?? '') });
  new UndiciInstrumentation();
  new FastifyInstrumentation().setTracerProvider(withoutLayerSpans(provider));
  new KoaInstrumentation().setTracerProvider(withoutLayerSpans(provider));
  // Queries outside a traced request (the mail outbox's polling, timers) would each be a trace.
  new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true });
  const shutdown = () => provider.shutdown().catch(() => undefined);
  // The last batch goes out before the process ends: after a drain (which exits explicitly), or
  // when nothing is left to do.
  beforeDrainedExit(shutdown);
  process.once('beforeExit', () => void shutdown());
  return { serviceName, shutdown };
}
