import { context, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { decodeExportRequest } from '@acme/test-kit/otlp-receiver';
import {
  exportRequest,
  ProtoWriter,
  statementSpanWriter,
  writeDirectSpan,
  writeSpan,
} from './otlp-protobuf.ts';
import { RedactingExporter } from './tracing.ts';

const SECRET = 'S3cr3t-refresh-token-value';
const REMOTE_PARENT = {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState('vendor=abc,other=x'),
};

/** Spans covering what the encoding must carry: every value type, events, links, statuses, limits. */
function makeSpans(tracer: Tracer, dbTracer: Tracer): void {
  const parent = trace.setSpanContext(context.active(), REMOTE_PARENT);
  const server = tracer.startSpan(
    'POST /oauth2/token',
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'url.path': `/oauth2/token?refresh_token=${SECRET}`,
        'server.port': 4444,
        'app.negative': -42,
        'app.big': 2 ** 40 + 7,
        'app.ratio': 0.125,
        'app.flag': false,
        'app.empty': '',
        'app.list': ['a', 'é', '🙂'],
        'app.numbers': [1, 2.5, -3],
        'app.bools': [true, false],
        'app.refresh_token': SECRET,
        'http.request.header.cookie': `session=${SECRET}`,
        'user_agent.original': 'x'.repeat(300),
      },
    },
    parent,
  );
  server.addEvent('exception', { 'exception.message': 'boom', 'oauth.code': SECRET });
  server.addEvent('plain');
  server.addLink({
    context: { ...REMOTE_PARENT, spanId: '00f067aa0ba902b7' },
    attributes: { 'link.kind': 'follows' },
  });
  server.setStatus({ code: SpanStatusCode.ERROR, message: 'closed before the response' });
  const inner = trace.setSpan(context.active(), server);
  const statement = dbTracer.startSpan(
    'SELECT',
    { kind: SpanKind.CLIENT, attributes: { 'db.query.text': 'select 1 where x = $1' } },
    inner,
  );
  statement.end();
  const big = tracer.startSpan('big', { kind: SpanKind.INTERNAL }, inner);
  for (let i = 0; i < 40; i++) big.setAttribute(`app.attr${i}`, 'v'.repeat(600));
  big.end();
  tracer.startSpan('ok', { kind: SpanKind.PRODUCER }, inner).setStatus({ code: SpanStatusCode.OK }).end();
  server.end();
}

/** Both encodings of the same spans: the SDK's serializer (after the redacting exporter) and ours. */
function encodeBoth(): { ours: Buffer; sdk: Uint8Array } {
  const finished: ReadableSpan[] = [];
  const capture: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => void finished.push(span),
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  };
  const memory = new InMemorySpanExporter();
  const resource = resourceFromAttributes({ 'service.name': 'users', 'service.instance.id': 'pod-1' });
  const provider = new BasicTracerProvider({
    resource,
    // 30 attributes at most: the big span's last ten are dropped and counted.
    spanLimits: { attributeCountLimit: 30 },
    spanProcessors: [capture, new SimpleSpanProcessor(new RedactingExporter(memory))],
  });
  makeSpans(provider.getTracer('@acme/service-kit', '1.2.3'), provider.getTracer('@acme/db'));
  const writers = new Map<string, ProtoWriter>();
  for (const span of finished) {
    const name = span.instrumentationScope.name;
    if (!writers.has(name)) writers.set(name, new ProtoWriter(16));
    writeSpan(writers.get(name)!, span);
  }
  const ours = exportRequest(
    resource.attributes,
    [...writers].map(([name, w]) => ({
      name,
      version: name === '@acme/service-kit' ? '1.2.3' : undefined,
      spans: Buffer.from(w.view()),
    })),
  );
  const sdk = ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!;
  return { ours, sdk };
}

describe('OTLP protobuf encoding of spans', () => {
  it("decodes to what the SDK's own serializer sends for the same spans, redacted", () => {
    const { ours, sdk } = encodeBoth();
    const decodedOurs = decodeExportRequest(ours);
    expect(decodedOurs).toEqual(decodeExportRequest(Buffer.from(sdk)));
    // The comparison can fail: the spans are there, with what they carry.
    const spans = decodedOurs.resourceSpans[0]!.scopeSpans.flatMap((s) => s.spans);
    expect(spans.map((s) => s.name).sort()).toEqual(['POST /oauth2/token', 'SELECT', 'big', 'ok']);
    const server = spans.find((s) => s.name === 'POST /oauth2/token')!;
    expect(server.parentSpanId).toBe(REMOTE_PARENT.spanId);
    expect(server.traceState).toBe('vendor=abc,other=x');
    expect(server.flags).toBe(0x301);
    expect(server.attributes['url.path']).toBe('/oauth2/token');
    expect(server.attributes['app.negative']).toBe(-42);
    expect(server.attributes['app.big']).toBe(2 ** 40 + 7);
    expect(server.attributes['app.list']).toEqual(['a', 'é', '🙂']);
    expect(server.events[0]!.attributes).toEqual({ 'exception.message': 'boom' });
    expect(spans.find((s) => s.name === 'big')!.droppedAttributesCount).toBe(10);
    expect(ours.toString('latin1')).not.toContain(SECRET);
  });

  it('writes a span without an SDK span object: a child of its parent, with its times, attributes and error status', () => {
    const w = new ProtoWriter(8);
    const spanId = Buffer.from('0102030405060708', 'hex');
    const startMs = 1_764_460_800_123.456;
    writeDirectSpan(w, {
      traceId: REMOTE_PARENT.traceId,
      spanId,
      traceFlags: 1,
      parentSpanId: REMOTE_PARENT.spanId,
      parentRemote: false,
      name: 'UPDATE',
      kind: SpanKind.CLIENT,
      startMs,
      endMs: startMs + 2.5,
      attributes: { 'db.query.text': 'update t set x = $1', 'db.password': SECRET },
      statusCode: SpanStatusCode.ERROR,
    });
    const request = decodeExportRequest(
      exportRequest({ 'service.name': 'oauth2' }, [{ name: '@acme/db', spans: w.view() }]),
    );
    expect(request.resourceSpans[0]!.resource.attributes).toEqual({ 'service.name': 'oauth2' });
    const [span] = request.resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(span).toMatchObject({
      traceId: REMOTE_PARENT.traceId,
      spanId: '0102030405060708',
      parentSpanId: REMOTE_PARENT.spanId,
      name: 'UPDATE',
      kind: 3,
      startTimeUnixNano: 1_764_460_800_123_456_000n,
      endTimeUnixNano: 1_764_460_800_125_956_000n,
      attributes: { 'db.query.text': 'update t set x = $1' },
      status: { code: 2 },
      flags: 0x101,
    });
  });

  describe('statement spans', () => {
    const KEYS = ['db.system.name', 'postgresql', 'db.operation.name', 'db.query.text'] as const;
    const spanId = Buffer.from('0102030405060708', 'hex');
    const startMs = 1_764_460_800_123.456;
    const long = `select ${Array.from({ length: 40 }, (_, i) => `"column_${i}"`).join(', ')} from "t" where "id" = $1`;
    const parents = {
      plain: { traceId: REMOTE_PARENT.traceId, spanId: REMOTE_PARENT.spanId, traceFlags: TraceFlags.SAMPLED },
      'with a trace state': REMOTE_PARENT,
    };
    /**
     * One statement written both ways: by the statement writer, and by writeDirectSpan as the same
     * span (what the writer must match).
     */
    const bothWays = (
      keys: readonly [string, string, string, string],
      parent: (typeof parents)[keyof typeof parents],
      command: string,
      sql: string,
      failed: boolean,
    ) => {
      const endMs = startMs + 0.75;
      const viaWriter = new ProtoWriter(8);
      statementSpanWriter(...keys)(viaWriter, parent, spanId, command, sql, startMs, endMs, failed);
      const direct = new ProtoWriter(8);
      writeDirectSpan(direct, {
        traceId: parent.traceId,
        spanId,
        traceState: 'traceState' in parent ? parent.traceState : undefined,
        traceFlags: parent.traceFlags,
        parentSpanId: parent.spanId,
        parentRemote: false,
        name: command,
        kind: SpanKind.CLIENT,
        startMs,
        endMs,
        attributes: { [keys[0]]: keys[1], [keys[2]]: command, [keys[3]]: sql },
        statusCode: failed ? SpanStatusCode.ERROR : SpanStatusCode.UNSET,
      });
      return { writer: Buffer.from(viaWriter.view()), direct: Buffer.from(direct.view()) };
    };

    it.each([
      ['a short statement', 'plain', 'SELECT', 'select 1', false],
      ['a failed one', 'plain', 'UPDATE', 'update "t" set "x" = $1', true],
      ['one longer than a one-byte length', 'plain', 'SELECT', long, false],
      [
        'one with other than ASCII',
        'with a trace state',
        'INSERT',
        "insert into t values ('é🙂', $1)",
        false,
      ],
    ] as const)('writes the bytes writeDirectSpan writes for %s', (_name, parent, command, sql, failed) => {
      const { writer: bytes, direct } = bothWays(KEYS, parents[parent], command, sql, failed);
      expect(bytes).toEqual(direct);
      // What they both write can fail to decode as the statement: it decodes as one.
      const [span] = decodeExportRequest(
        exportRequest({ 'service.name': 'users' }, [{ name: '@acme/db', spans: bytes }]),
      ).resourceSpans[0]!.scopeSpans[0]!.spans;
      expect(span).toMatchObject({
        name: command,
        kind: 3,
        parentSpanId: REMOTE_PARENT.spanId,
        attributes: { 'db.system.name': 'postgresql', 'db.operation.name': command, 'db.query.text': sql },
        status: failed ? { code: 2 } : {},
        flags: 0x101,
      });
    });

    it('leaves a key whose values the redaction rule rewrites to writeDirectSpan, which rewrites them', () => {
      const keys = ['db.system.name', 'postgresql', 'db.operation.name', 'url.full'] as const;
      const sql = `https://host/path?token=${SECRET}`;
      const { writer: bytes, direct } = bothWays(keys, parents.plain, 'SELECT', sql, false);
      expect(bytes).toEqual(direct);
      expect(bytes.toString('latin1')).not.toContain(SECRET);
      expect(bytes.toString('latin1')).toContain('https://host/path');
    });

    it('leaves a key the redaction rule drops to writeDirectSpan, which drops it', () => {
      const keys = ['db.system.name', 'postgresql', 'db.operation.name', 'db.password'] as const;
      const { writer: bytes, direct } = bothWays(keys, parents.plain, 'SELECT', SECRET, false);
      expect(bytes).toEqual(direct);
      expect(bytes.toString('latin1')).not.toContain(SECRET);
    });
  });

  it.each([
    ['a length of one byte', 127],
    ['a length of two bytes', 128],
    ['a length of three bytes', 16_384],
    ['a length past the first buffer', 100_000],
  ])('frames an embedded message with %s (%i bytes)', (_name, size) => {
    const w = new ProtoWriter(4);
    const at = w.begin(1);
    w.raw(Buffer.alloc(size, 7));
    w.end(at);
    const bytes = w.view();
    // Tag 0x0a, the varint length, then the content unchanged.
    let length = 0;
    let shift = 1;
    let i = 1;
    for (; bytes[i]! & 0x80; i++, shift *= 128) length += (bytes[i]! & 0x7f) * shift;
    length += bytes[i]! * shift;
    expect(bytes[0]).toBe(0x0a);
    expect(length).toBe(size);
    expect(bytes.length).toBe(i + 1 + size);
    expect(bytes.subarray(i + 1).every((b) => b === 7)).toBe(true);
  });
});
