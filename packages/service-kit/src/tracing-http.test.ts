import { ROOT_CONTEXT, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { TraceState, W3CTraceContextPropagator } from '@opentelemetry/core';
import { describe, expect, it } from 'vitest';
import { injectInto, undiciTarget } from './tracing-http.ts';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe("a call's trace headers", () => {
  it.each<[string, SpanContext]>([
    ['sampled', { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED }],
    ['not sampled', { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.NONE }],
    [
      'with a tracestate',
      {
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        traceFlags: TraceFlags.SAMPLED,
        traceState: new TraceState('vendor=1,other=two'),
      },
    ],
    ['an invalid trace id', { traceId: '0'.repeat(32), spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED }],
    ['an invalid span id', { traceId: TRACE_ID, spanId: '0'.repeat(16), traceFlags: TraceFlags.SAMPLED }],
  ])('are what the W3C propagator writes: %s', (_, spanContext) => {
    const span = trace.wrapSpanContext(spanContext);
    const ours: Record<string, string> = {};
    injectInto(span, (name, value) => (ours[name] = value));
    const theirs: Record<string, string> = {};
    new W3CTraceContextPropagator().inject(trace.setSpan(ROOT_CONTEXT, span), theirs, {
      set: (carrier, key, value) => (carrier[key] = value),
    });
    expect(ours).toEqual(theirs);
  });
});

describe("a fetch's target", () => {
  it.each([
    ['http://127.0.0.1:4456', '/admin/token-claims?include=roles'],
    ['http://users-admin:4456', '/admin/sso/identities/7'],
    ['https://graph.example.com', '/v1.0/me'],
    // Origins whose URL differs from how they are written: the parser's answer.
    ['http://localhost:80', '/x'],
    ['https://Example.COM:443', '/y'],
    ['http://host:81/', '/z'],
    ['http://user:pass@host:82', '/secret'],
    // A path not from the root.
    ['http://host:83', '*'],
  ])('%s %s is where the URL parser says', (origin, path) => {
    const url = new URL(path, origin);
    const expected = {
      href: url.href,
      hostname: url.hostname,
      port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    };
    // Twice: the first parses the origin, the second finds it parsed.
    expect(undiciTarget(origin, path)).toEqual(expected);
    expect(undiciTarget(origin, path)).toEqual(expected);
    expect(undiciTarget(new URL(origin), path)).toEqual(expected);
  });
});
