// The way out for spans over OTLP/HTTP protobuf: a span processor that encodes each span as it ends
// (otlp-protobuf.ts, attributes redacted on the way in) and posts the bytes in batches. It does the
// work of the SDK's batch processor and OTLP exporter (the same settings, OTEL_BSP_* and
// OTEL_EXPORTER_OTLP_TIMEOUT, and the same retries) without keeping span objects until the next
// export: measured under load (`BENCH_ONLY=tracing npm run bench`), spans kept for seconds were
// promoted to V8's old generation and most of tracing's cost was their collection and copying.
// HTTP requests' and calls' spans (recorded-span.ts) and statements' (tracing.ts) are written here
// directly, without an SDK span object.
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { context, diag, TraceFlags, type Attributes, type Context } from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { exportRequest, ProtoWriter, writeDirectSpan, writeSpan, type DirectSpan } from './otlp-protobuf.ts';

export interface SpanExportOptions {
  /** Where spans are posted (…/v1/traces). */
  url: string;
  headers: Record<string, string>;
  /** The resource's attributes (service.name, …), sent once per export. */
  resource: Attributes;
  /** The longest a finished span waits before it is sent (OTEL_BSP_SCHEDULE_DELAY). */
  scheduledDelayMs: number;
  /** Spans that start an export at once (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
  maxExportBatchSize: number;
  /** Spans kept while an export is on its way; more are dropped (OTEL_BSP_MAX_QUEUE_SIZE). */
  maxQueueSize: number;
  /** One attempt's time limit (OTEL_EXPORTER_OTLP_TIMEOUT). */
  timeoutMs: number;
  /** Waits between attempts (before jitter); their count is the retries. Default 1, 1.5, 2.25, 3.4 s. */
  retryDelaysMs?: number[];
}

const DEFAULT_RETRY_DELAYS_MS = [1000, 1500, 2250, 3375];
/** Answers worth another attempt (OTLP/HTTP's retryable statuses), besides a failed connection. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const CONTENT_TYPE = 'application/x-protobuf';
/** The longest wait a collector's Retry-After gets. */
const MAX_RETRY_AFTER_S = 30;

interface ScopeBuffer {
  name: string;
  version?: string;
  schemaUrl?: string;
  writer: ProtoWriter;
}

type Attempt = { ok: true } | { ok: false; retry: boolean; afterMs?: number; reason: string };

/** The seconds of a Retry-After header, when it gives a number of them. */
function retryAfterMs(res: IncomingMessage): number | undefined {
  const value = Number(res.headers['retry-after']);
  return Number.isFinite(value) && value >= 0 ? Math.min(value, MAX_RETRY_AFTER_S) * 1000 : undefined;
}

export class EncodingSpanProcessor implements SpanProcessor {
  private readonly options: SpanExportOptions;
  private readonly target: URL;
  private readonly send: typeof httpRequest;
  private readonly agent: HttpAgent;
  private readonly scopes = new Map<string, ScopeBuffer>();
  /** The buffer of each scope object the SDK hands over (one per tracer, reused for its spans). */
  private readonly scopeObjects = new WeakMap<object, ScopeBuffer>();
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;
  /** Spans dropped because the queue was full (the collector slower than the spans). */
  dropped = 0;
  /** Batches given up after their last attempt. */
  failedExports = 0;

  constructor(options: SpanExportOptions) {
    this.options = options;
    this.target = new URL(options.url);
    const https = this.target.protocol === 'https:';
    this.send = https ? httpsRequest : httpRequest;
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (!(span.spanContext().traceFlags & TraceFlags.SAMPLED) || !this.hasRoom()) return;
    const scope = span.instrumentationScope;
    let buffer = this.scopeObjects.get(scope);
    if (!buffer) {
      buffer = this.bufferOf(scope.name, scope.version, scope.schemaUrl);
      this.scopeObjects.set(scope, buffer);
    }
    writeSpan(buffer.writer, span);
    this.added();
  }

  /**
   * The buffer a span of `scope` is written into, when the span is sampled and the queue has room;
   * else nothing, and the span is not written. `added()` once it is written.
   */
  bufferFor(scope: string, traceFlags: number): ProtoWriter | undefined {
    if (!(traceFlags & TraceFlags.SAMPLED) || !this.hasRoom()) return undefined;
    return (this.scopes.get(scope) ?? this.bufferOf(scope)).writer;
  }

  /** A span of `scope` written without an SDK span (an HTTP request's or call's), when sampled. */
  writeDirect(scope: string, span: DirectSpan): void {
    const writer = this.bufferFor(scope, span.traceFlags);
    if (!writer) return;
    writeDirectSpan(writer, span);
    this.added();
  }

  forceFlush(): Promise<void> {
    return this.drain();
  }

  async shutdown(): Promise<void> {
    if (this.stopped) return;
    await this.drain();
    this.stopped = true;
    this.agent.destroy();
  }

  private hasRoom(): boolean {
    if (this.stopped) return false;
    if (this.queued < this.options.maxQueueSize) return true;
    this.dropped++;
    return false;
  }

  private bufferOf(name: string, version?: string, schemaUrl?: string): ScopeBuffer {
    const key = version || schemaUrl ? `${name}@${version ?? ''}:${schemaUrl ?? ''}` : name;
    let buffer = this.scopes.get(key);
    if (!buffer) {
      buffer = { name, version, schemaUrl, writer: new ProtoWriter() };
      this.scopes.set(key, buffer);
    }
    return buffer;
  }

  /** Counts a span written into a buffer of `bufferFor`, and schedules the export. */
  added(): void {
    this.queued++;
    this.schedule();
  }

  /**
   * What is queued goes now when a batch is full, else after the delay; while an export is on its
   * way, its end decides.
   */
  private schedule(): void {
    if (this.inFlight) return;
    if (this.queued >= this.options.maxExportBatchSize) void this.exportQueued();
    else if (this.queued > 0 && !this.timer) {
      this.timer = setTimeout(() => void this.exportQueued(), this.options.scheduledDelayMs);
      this.timer.unref();
    }
  }

  /**
   * Sends what is buffered now: after the export on its way, one more with everything queued by
   * then. Spans that end meanwhile wait for the next round (a flush under load ends).
   */
  private async drain(): Promise<void> {
    if (this.inFlight) await this.inFlight;
    // The export that ended may have started the next, with what was queued meanwhile.
    if (this.inFlight) await this.inFlight;
    else if (this.queued > 0) await this.exportQueued();
  }

  /** Starts the export of what is buffered, unless one is on its way (which starts the next). */
  private exportQueued(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.inFlight) return this.inFlight;
    if (this.queued === 0) return Promise.resolve();
    const scopes = [...this.scopes.values()]
      .filter((s) => s.writer.length > 0)
      .map((s) => ({ name: s.name, version: s.version, schemaUrl: s.schemaUrl, spans: s.writer.view() }));
    const body = exportRequest(this.options.resource, scopes);
    for (const s of this.scopes.values()) s.writer.reset();
    const count = this.queued;
    this.queued = 0;
    this.inFlight = this.deliver(body, count).finally(() => {
      this.inFlight = undefined;
      this.schedule();
    });
    return this.inFlight;
  }

  private async deliver(body: Buffer, spans: number): Promise<void> {
    const delays = this.options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    for (let attempt = 0; ; attempt++) {
      const result = await this.attempt(body);
      if (result.ok) return;
      const delay = delays[attempt];
      if (!result.retry || delay === undefined) {
        this.failedExports++;
        diag.warn(`OTLP export of ${spans} spans failed: ${result.reason}`);
        return;
      }
      // The server's wait when it names one, else the next step with ±20 % jitter.
      const wait = result.afterMs ?? delay * (0.8 + Math.random() * 0.4);
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
  }

  /** One POST of `body`, outside any trace (the call is no span of its own). */
  private attempt(body: Buffer): Promise<Attempt> {
    return new Promise((resolve) => {
      context.with(suppressTracing(context.active()), () => {
        const req = this.send(this.target, {
          method: 'POST',
          agent: this.agent,
          timeout: this.options.timeoutMs,
          headers: { ...this.options.headers, 'content-type': CONTENT_TYPE, 'content-length': body.length },
        });
        req.once('response', (res) => {
          res.resume();
          res.once('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) resolve({ ok: true });
            else
              resolve({
                ok: false,
                retry: RETRYABLE.has(status),
                afterMs: retryAfterMs(res),
                reason: `HTTP ${status}`,
              });
          });
          res.once('error', (err) => resolve({ ok: false, retry: true, reason: err.message }));
        });
        req.once('timeout', () => req.destroy(new Error(`no answer in ${this.options.timeoutMs} ms`)));
        req.once('error', (err) => resolve({ ok: false, retry: true, reason: err.message }));
        req.end(body);
      });
    });
  }
}
