// The spans of HTTP requests and calls on the protobuf way out (tracing-http.ts, span-export.ts):
// an implementation of the OpenTelemetry API's Span that keeps what the span will be encoded from
// (ids, name, kind, times, attributes, events, links, status) and hands itself to the encoder when
// it ends. It replaces the SDK's span object, whose making and ending (limits, attribute checks,
// clock anchoring, the span processor chain, the SDK's own span metrics) measured as the largest
// part of tracing's remaining cost per request (`BENCH_ONLY=tracing npm run bench`, ADR 0026).
// The configured sampler decides as it does for the SDK's spans; the API sees a Span like any other.
import { randomBytes } from 'node:crypto';
import {
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import { isTracingSuppressed } from '@opentelemetry/core';
import { SamplingDecision, type Sampler } from '@opentelemetry/sdk-trace-base';
import type { DirectEvent, DirectSpan } from './otlp-protobuf.ts';

/** The SDK's default span limits: attributes, events and links kept per span. */
const MAX_ATTRIBUTES = 128;
const MAX_EVENTS = 128;
const MAX_LINKS = 128;

/** A span's start: its name, kind and attributes (taken over, not copied), and its parent's context. */
export type StartSpan = (name: string, kind: SpanKind, attributes: Attributes, parent: Context) => Span;

/** Random ids (trace ids 16 bytes, span ids 8), cut from a block of random bytes filled 4 KiB at a time. */
export class RandomIds {
  private block = randomBytes(4096);
  private at = 0;

  private take(n: number): number {
    if (this.at + n > this.block.length) {
      this.block = randomBytes(4096);
      this.at = 0;
    }
    this.at += n;
    return this.at - n;
  }

  /** `into.length` random bytes written into `into` (never all zero); `into` is returned. */
  fill(into: Uint8Array): Uint8Array {
    const from = this.take(into.length);
    let any = 0;
    for (let i = 0; i < into.length; i++) any |= into[i] = this.block[from + i]!;
    if (any === 0) into[into.length - 1] = 1;
    return into;
  }

  /** `n` random bytes as lower-case hexadecimal (the API's form of trace and span ids). */
  hex(n: number): string {
    const from = this.take(n);
    const hex = this.block.toString('hex', from, from + n);
    // All zeros is the invalid id: the last byte made 1, as the SDK does.
    return /[^0]/.test(hex) ? hex : `${hex.slice(0, -2)}01`;
  }
}

/** The epoch milliseconds of `performance.now()`'s zero: fixed for the process (read once, not per span). */
export const TIME_ORIGIN = performance.timeOrigin;

/** Epoch milliseconds of a time the API accepts (epoch or performance milliseconds, a Date, an HrTime). */
function epochMs(time: TimeInput | undefined): number {
  if (time === undefined) return TIME_ORIGIN + performance.now();
  if (typeof time === 'number') return time < TIME_ORIGIN ? TIME_ORIGIN + time : time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

const hasValue = (value: AttributeValue | undefined | null): value is AttributeValue =>
  value !== undefined && value !== null;

class RecordedSpan implements Span, DirectSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceState: SpanContext['traceState'];
  readonly traceFlags: number;
  readonly parentSpanId: string | undefined;
  readonly parentRemote: boolean;
  name: string;
  readonly kind: SpanKind;
  readonly startMs: number;
  endMs = 0;
  readonly attributes: Attributes;
  droppedAttributesCount = 0;
  /** The attributes' count, kept as they are set (counting the keys on each set made an array). */
  private attributeCount: number;
  events: DirectEvent[] | undefined;
  links: Link[] | undefined;
  statusCode: SpanStatusCode = SpanStatusCode.UNSET;
  statusMessage: string | undefined;
  private context: SpanContext | undefined;
  private readonly onEnd: (span: DirectSpan) => void;

  // The ids as arguments of their own, not an object of them: one allocation fewer per span.
  constructor(
    traceId: string,
    spanId: string,
    traceFlags: number,
    traceState: SpanContext['traceState'],
    parent: SpanContext | undefined,
    name: string,
    kind: SpanKind,
    attributes: Attributes,
    onEnd: (span: DirectSpan) => void,
  ) {
    this.traceId = traceId;
    this.spanId = spanId;
    this.traceFlags = traceFlags;
    this.traceState = traceState;
    this.parentSpanId = parent?.spanId;
    this.parentRemote = parent?.isRemote === true;
    this.name = name;
    this.kind = kind;
    this.attributes = attributes;
    let count = 0;
    for (const key in attributes) if (Object.hasOwn(attributes, key)) count++;
    this.attributeCount = count;
    this.onEnd = onEnd;
    this.startMs = TIME_ORIGIN + performance.now();
  }

  spanContext(): SpanContext {
    this.context ??= {
      traceId: this.traceId,
      spanId: this.spanId,
      traceFlags: this.traceFlags,
      traceState: this.traceState,
    };
    return this.context;
  }

  isRecording(): boolean {
    return this.endMs === 0;
  }

  setAttribute(key: string, value: AttributeValue): this {
    // `__proto__` would set the object's prototype rather than a field.
    if (this.endMs !== 0 || !key || key === '__proto__' || !hasValue(value)) return this;
    if (!Object.hasOwn(this.attributes, key)) {
      if (this.attributeCount >= MAX_ATTRIBUTES) {
        this.droppedAttributesCount++;
        return this;
      }
      this.attributeCount++;
    }
    this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key of Object.keys(attributes)) this.setAttribute(key, attributes[key] as AttributeValue);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.endMs !== 0) return this;
    this.events ??= [];
    if (this.events.length >= MAX_EVENTS) return this;
    const isTime =
      typeof attributesOrTime === 'number' ||
      attributesOrTime instanceof Date ||
      Array.isArray(attributesOrTime);
    this.events.push({
      name,
      timeMs: epochMs(isTime ? (attributesOrTime as TimeInput) : time),
      attributes: isTime ? undefined : (attributesOrTime as Attributes | undefined),
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.endMs !== 0) return this;
    this.links ??= [];
    if (this.links.length < MAX_LINKS) this.links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  /** The API's rule: UNSET changes nothing, OK is final, only an error keeps its message. */
  setStatus(status: SpanStatus): this {
    if (this.endMs !== 0 || status.code === SpanStatusCode.UNSET || this.statusCode === SpanStatusCode.OK)
      return this;
    this.statusCode = status.code;
    this.statusMessage =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string' ? status.message : undefined;
    return this;
  }

  updateName(name: string): this {
    if (this.endMs === 0) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else {
      const type = exception.code ?? exception.name;
      if (type !== undefined) attributes['exception.type'] = String(type);
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message'])
      this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.endMs !== 0) return;
    this.endMs = Math.max(this.startMs, epochMs(endTime));
    this.onEnd(this);
  }
}

/**
 * Starts spans as the SDK's tracer would (the sampler's decision, the parent's trace, no span while
 * tracing is suppressed), recording them as RecordedSpans that go to `onEnd` when they end.
 */
export function spanRecorder(sampler: Sampler, onEnd: (span: DirectSpan) => void, ids: RandomIds): StartSpan {
  return (name, kind, attributes, parentContext) => {
    if (isTracingSuppressed(parentContext)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const found = trace.getSpanContext(parentContext);
    const parent = found && isSpanContextValid(found) ? found : undefined;
    const traceId = parent?.traceId ?? ids.hex(16);
    const spanId = ids.hex(8);
    const result = sampler.shouldSample(parentContext, traceId, name, kind, attributes, []);
    const traceState = result.traceState ?? parent?.traceState;
    if (result.decision === SamplingDecision.NOT_RECORD)
      return trace.wrapSpanContext({ traceId, spanId, traceFlags: TraceFlags.NONE, traceState });
    if (result.attributes) Object.assign(attributes, result.attributes);
    const traceFlags =
      result.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    return new RecordedSpan(traceId, spanId, traceFlags, traceState, parent, name, kind, attributes, onEnd);
  };
}
