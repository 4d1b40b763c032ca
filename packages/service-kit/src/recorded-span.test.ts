import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { suppressTracing, TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeExportRequest, type DecodedSpan } from '@acme/test-kit/otlp-receiver';
import { exportRequest, ProtoWriter, writeDirectSpan, type DirectSpan } from './otlp-protobuf.ts';
import { RandomIds, spanRecorder, type StartSpan } from './recorded-span.ts';
import { RedactingExporter } from './tracing.ts';

const SECRET = 'S3cr3t-authorization-code';
const REMOTE_PARENT: SpanContext = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState('vendor=abc'),
};
const remote = (flags: number): Context =>
  trace.setSpanContext(ROOT_CONTEXT, { ...REMOTE_PARENT, traceFlags: flags });

/** One error for both runs: its stack is an attribute. */
const FAILURE = new TypeError('boom');

const recordOnly: Sampler = {
  shouldSample: () => ({ decision: SamplingDecision.RECORD }),
  toString: () => 'record only',
};

function recorder(sampler: Sampler = new AlwaysOnSampler()): { start: StartSpan; ended: DirectSpan[] } {
  const ended: DirectSpan[] = [];
  return { start: spanRecorder(sampler, (span) => void ended.push(span), new RandomIds()), ended };
}

/**
 * One request's spans through the API: a server span continuing a remote trace (a URL with a query
 * string, a secret-named attribute, events, an exception, a link, an error status, a new name,
 * writes after its end), a client call under it, and a span past the attribute limit.
 */
function requestSpans(start: StartSpan) {
  const server = start(
    'GET',
    SpanKind.SERVER,
    { 'http.request.method': 'GET', 'url.path': `/callback?code=${SECRET}`, 'server.port': 4455 },
    remote(TraceFlags.SAMPLED),
  );
  server.setAttribute('http.route', '/callback');
  server.setAttributes({ 'app.count': 3, 'app.code': SECRET, 'app.list': ['a', 'b'] });
  server.addEvent('plain');
  server.addEvent('with attributes', { 'app.step': 'two', 'oauth.refresh_token': SECRET });
  server.recordException(FAILURE);
  server.addLink({
    context: { ...REMOTE_PARENT, spanId: '00f067aa0ba902b7' },
    attributes: { 'link.kind': 'x' },
  });
  server.setStatus({ code: SpanStatusCode.ERROR, message: 'closed before the response' });
  server.updateName('GET /callback');
  const call = start(
    'POST',
    SpanKind.CLIENT,
    { 'url.full': `http://users/admin/token-claims?token=${SECRET}` },
    trace.setSpan(context.active(), server),
  );
  call.setStatus({ code: SpanStatusCode.OK });
  // OK is final: a later error changes nothing.
  call.setStatus({ code: SpanStatusCode.ERROR, message: 'ignored' });
  call.end();
  const wide = start('wide', SpanKind.INTERNAL, {}, trace.setSpan(context.active(), server));
  for (let i = 0; i < 130; i++) wide.setAttribute(`app.attr${i}`, i);
  wide.end();
  server.end();
  server.setAttribute('app.after', 'end');
  server.updateName('renamed after its end');
  server.end();
}

/** A decoded span with its random ids replaced by the names of the spans they point at. */
function comparable(spans: DecodedSpan[]) {
  const names = new Map(spans.map((s) => [s.spanId, s.name]));
  return spans
    .map(({ spanId: _id, startTimeUnixNano: _s, endTimeUnixNano: _e, events, ...rest }) => ({
      ...rest,
      parentSpanId: names.get(rest.parentSpanId) ?? rest.parentSpanId,
      events: events.map(({ timeUnixNano: _t, ...e }) => e),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const decodedSpans = (body: Buffer | Uint8Array) =>
  decodeExportRequest(Buffer.from(body)).resourceSpans[0]!.scopeSpans.flatMap((s) => s.spans);

describe('recorded spans (HTTP spans without SDK span objects)', () => {
  it("encode to what the SDK's spans of the same calls send, redacted, with ids and times of their own", () => {
    const before = Date.now();
    const { start, ended } = recorder();
    requestSpans(start);
    const w = new ProtoWriter(64);
    for (const span of ended) writeDirectSpan(w, span);
    const resource = { 'service.name': 'identity' };
    const ours = decodedSpans(exportRequest(resource, [{ name: '@acme/service-kit', spans: w.view() }]));

    const memory = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes(resource),
      spanProcessors: [new SimpleSpanProcessor(new RedactingExporter(memory))],
    });
    const tracer = provider.getTracer('@acme/service-kit');
    requestSpans((name, kind, attributes, parent) => tracer.startSpan(name, { kind, attributes }, parent));
    const sdk = decodedSpans(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);

    expect(comparable(ours)).toEqual(comparable(sdk));
    // What the comparison holds, so that it can fail.
    expect(ended).toHaveLength(3);
    const server = ours.find((s) => s.name === 'GET /callback')!;
    expect(server).toMatchObject({
      traceId: REMOTE_PARENT.traceId,
      parentSpanId: REMOTE_PARENT.spanId,
      traceState: 'vendor=abc',
      kind: 2,
      flags: 0x301,
      status: { code: 2, message: 'closed before the response' },
      attributes: { 'url.path': '/callback', 'http.route': '/callback', 'app.count': 3 },
    });
    expect(server.attributes).not.toHaveProperty('app.code');
    expect(server.attributes).not.toHaveProperty('app.after');
    expect(server.events.map((e) => e.name)).toEqual(['plain', 'with attributes', 'exception']);
    expect(server.events[2]!.attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': 'boom',
    });
    expect(server.links).toHaveLength(1);
    const call = ours.find((s) => s.name === 'POST')!;
    expect(call).toMatchObject({ parentSpanId: server.spanId, flags: 0x101, status: { code: 1 } });
    expect(call.attributes['url.full']).toBe('http://users/admin/token-claims');
    const wide = ours.find((s) => s.name === 'wide')!;
    expect(Object.keys(wide.attributes)).toHaveLength(128);
    expect(wide.droppedAttributesCount).toBe(2);
    expect(Buffer.from(w.view()).toString('latin1')).not.toContain(SECRET);
    for (const span of ours) {
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(span.startTimeUnixNano).toBeGreaterThanOrEqual(BigInt(before) * 1_000_000n);
      expect(span.endTimeUnixNano).toBeGreaterThanOrEqual(span.startTimeUnixNano);
    }
  });

  it.each([
    // sampler, parent, recording, sampled, same trace as the parent
    ['always on, a new trace', new AlwaysOnSampler(), ROOT_CONTEXT, true, true, false],
    ['always off', new AlwaysOffSampler(), ROOT_CONTEXT, false, false, false],
    [
      'parent-based, an unsampled remote parent',
      new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      remote(TraceFlags.NONE),
      false,
      false,
      true,
    ],
    [
      'parent-based with root off, a sampled remote parent',
      new ParentBasedSampler({ root: new AlwaysOffSampler() }),
      remote(TraceFlags.SAMPLED),
      true,
      true,
      true,
    ],
    ['record only: recorded, never sampled', recordOnly, ROOT_CONTEXT, true, false, false],
  ])('samples as the SDK does: %s', (_name, sampler, parent, recording, sampled, sameTrace) => {
    const { start, ended } = recorder(sampler);
    const span = start('GET', SpanKind.SERVER, {}, parent);
    const ids = span.spanContext();
    expect(span.isRecording()).toBe(recording);
    expect(ids.traceFlags & TraceFlags.SAMPLED).toBe(sampled ? TraceFlags.SAMPLED : 0);
    expect(ids.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ids.traceId).not.toBe('0'.repeat(32));
    expect(ids.traceId === REMOTE_PARENT.traceId).toBe(sameTrace);
    expect(ids.spanId).toMatch(/^(?!0{16})[0-9a-f]{16}$/);
    span.end();
    expect(ended).toHaveLength(recording ? 1 : 0);
  });

  it('makes no span while tracing is suppressed (the exporter posting its batch)', () => {
    const { start, ended } = recorder();
    const span = start('POST', SpanKind.CLIENT, {}, suppressTracing(ROOT_CONTEXT));
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
    span.end();
    expect(ended).toEqual([]);
  });

  it('gives each span ids of its own, and keeps a prototype key out of its attributes', () => {
    const { start, ended } = recorder();
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const span = start('GET', SpanKind.SERVER, {}, ROOT_CONTEXT);
      seen.add(span.spanContext().spanId);
      seen.add(span.spanContext().traceId);
      span.setAttribute('__proto__', 'x');
      span.end();
    }
    expect(seen.size).toBe(4000);
    expect(Object.getPrototypeOf(ended[0]!.attributes)).toBe(Object.prototype);
    expect(Object.keys(ended[0]!.attributes)).toEqual([]);
  });
});
