import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, TraceFlags } from '@opentelemetry/api';
import { BasicTracerProvider, type Sampler, SamplingDecision } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeExportRequest } from '@acme/test-kit/otlp-receiver';
import { EncodingSpanProcessor, type SpanExportOptions } from './span-export.ts';

const SECRET = 'S3cr3t-code-that-must-not-leave';

type Answer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

interface Collector {
  url: string;
  /** The span names of each request that reached it, in order. */
  requests: string[][];
  bodies: Buffer[];
  close(): Promise<void>;
}

/** An OTLP/HTTP endpoint whose answer to each request the test decides (200 by default). */
async function startCollector(answer: Answer = (_q, res) => res.writeHead(200).end()): Promise<Collector> {
  const requests: string[][] = [];
  const bodies: Buffer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      bodies.push(body);
      requests.push(
        decodeExportRequest(body).resourceSpans.flatMap((rs) =>
          rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.name)),
        ),
      );
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    requests,
    bodies,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

function processorFor(url: string, overrides: Partial<SpanExportOptions> = {}) {
  const processor = new EncodingSpanProcessor({
    url,
    headers: { 'x-api-key': 'collector-key' },
    resource: { 'service.name': 'test' },
    scheduledDelayMs: 50,
    maxExportBatchSize: 3,
    maxQueueSize: 100,
    timeoutMs: 1000,
    retryDelaysMs: [10, 10, 10],
    ...overrides,
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  open.push({ close: () => provider.shutdown() });
  const tracer = provider.getTracer('t');
  const end = (name: string, attributes = {}) => tracer.startSpan(name, { attributes }).end();
  return { processor, end, provider };
}

describe('EncodingSpanProcessor (spans out over OTLP/HTTP protobuf)', () => {
  it('sends a batch as soon as it is full, then the rest, with the headers set', async () => {
    let headers: IncomingMessage['headers'] = {};
    const collector = await startCollector((req, res) => {
      headers = req.headers;
      res.writeHead(200).end();
    });
    open.push(collector);
    const { end } = processorFor(collector.url);
    for (let i = 1; i <= 7; i++) end(`s${i}`);
    await expect.poll(() => collector.requests.flat().length, { timeout: 10_000 }).toBe(7);
    // The first full batch went at once; what ended while it was on its way went next (one export
    // at a time): every span once, in order.
    expect(collector.requests[0]).toEqual(['s1', 's2', 's3']);
    expect(collector.requests.flat()).toEqual(['s1', 's2', 's3', 's4', 's5', 's6', 's7']);
    expect(headers['content-type']).toBe('application/x-protobuf');
    expect(headers['x-api-key']).toBe('collector-key');
  });

  it('sends a span below the batch size once the delay has passed, unasked', async () => {
    const collector = await startCollector();
    open.push(collector);
    const { end } = processorFor(collector.url, { scheduledDelayMs: 30 });
    end('alone');
    await expect.poll(() => collector.requests, { timeout: 10_000 }).toEqual([['alone']]);
  });

  it('redacts on the way in: no query string, credential header or secret-named attribute is sent', async () => {
    const collector = await startCollector();
    open.push(collector);
    const { end, processor } = processorFor(collector.url);
    end('GET', {
      'url.full': `http://a/cb?code=${SECRET}`,
      'http.request.header.authorization': `Bearer ${SECRET}`,
      'app.session_token': SECRET,
    });
    await processor.forceFlush();
    expect(collector.bodies).toHaveLength(1);
    expect(collector.bodies[0]!.toString('latin1')).not.toContain(SECRET);
    const [span] = decodeExportRequest(collector.bodies[0]!).resourceSpans[0]!.scopeSpans[0]!.spans;
    expect(span!.attributes).toEqual({ 'url.full': 'http://a/cb' });
  });

  it.each([429, 502, 503, 504])(
    'retries an export answered %i, and each span arrives once',
    async (status) => {
      let answered = 0;
      const collector = await startCollector((_q, res) => res.writeHead(answered++ < 2 ? status : 200).end());
      open.push(collector);
      const { end, processor } = processorFor(collector.url);
      end('once');
      await processor.forceFlush();
      expect(collector.requests).toEqual([['once'], ['once'], ['once']]);
      expect(processor.failedExports).toBe(0);
    },
  );

  it('gives up on an export refused outright (400) at once, and sends the next', async () => {
    let answered = 0;
    const collector = await startCollector((_q, res) => res.writeHead(answered++ === 0 ? 400 : 200).end());
    open.push(collector);
    const { end, processor } = processorFor(collector.url);
    end('refused');
    await processor.forceFlush();
    end('next');
    await processor.forceFlush();
    expect(collector.requests).toEqual([['refused'], ['next']]);
    expect(processor.failedExports).toBe(1);
  });

  it('gives up after its retries on a collector that does not answer, keeping at most the queue meanwhile', async () => {
    const collector = await startCollector(() => undefined); // never answers
    open.push(collector);
    const { end, processor } = processorFor(collector.url, {
      timeoutMs: 1000,
      retryDelaysMs: [10],
      maxExportBatchSize: 1,
      maxQueueSize: 5,
    });
    end('first'); // goes out at once and hangs
    // 50 spans end while the first export waits: 5 are kept, 45 dropped.
    for (let i = 0; i < 50; i++) end(`waiting${i}`);
    expect(processor.dropped).toBe(45);
    await processor.forceFlush();
    // Both batches (the first, then the kept ones) timed out twice and were given up.
    expect(processor.failedExports).toBe(2);
    // What reached the collector: the first and the kept ones, never a dropped one.
    const kept = ['first', 'waiting0', 'waiting1', 'waiting2', 'waiting3', 'waiting4'];
    const received = collector.requests.flat();
    expect(received).toEqual(expect.arrayContaining(kept));
    expect(received.every((name) => kept.includes(name))).toBe(true);
  }, 20_000);

  it('never throws to the span that ended when the collector cannot be reached', async () => {
    const { end, processor } = processorFor('http://127.0.0.1:9/v1/traces', { retryDelaysMs: [] });
    expect(() => end('lost')).not.toThrow();
    await processor.forceFlush();
    expect(processor.failedExports).toBe(1);
  });

  it('flushes what was there when asked, even while spans keep ending (its own export traced by the process)', async () => {
    const spans: { end?: (name: string) => void } = {};
    // Each export makes a new span, as a collector served by the traced process itself would.
    const collector = await startCollector((_q, res) => {
      spans.end?.('echo');
      res.writeHead(200).end();
    });
    open.push(collector);
    const { processor, end } = processorFor(collector.url, { maxExportBatchSize: 1000 });
    spans.end = end;
    end('first');
    await processor.forceFlush();
    await processor.forceFlush();
    expect(collector.requests.slice(0, 2)).toEqual([['first'], ['echo']]);
  });

  it('sends no span of an unsampled trace', async () => {
    const collector = await startCollector();
    open.push(collector);
    const processor = new EncodingSpanProcessor({
      url: collector.url,
      headers: {},
      resource: {},
      scheduledDelayMs: 10,
      maxExportBatchSize: 10,
      maxQueueSize: 10,
      timeoutMs: 1000,
    });
    // Records every span but samples none: only a sampled span may leave.
    const recordOnly: Sampler = {
      shouldSample: () => ({ decision: SamplingDecision.RECORD }),
      toString: () => 'r',
    };
    const provider = new BasicTracerProvider({ sampler: recordOnly, spanProcessors: [processor] });
    open.push({ close: () => provider.shutdown() });
    const span = provider.getTracer('t').startSpan('recorded');
    expect(span.spanContext().traceFlags & TraceFlags.SAMPLED).toBe(0);
    span.end();
    processor.writeDirect('@acme/db', {
      ...span.spanContext(),
      spanId: new Uint8Array(8),
      parentRemote: false,
      name: 'SELECT',
      kind: SpanKind.CLIENT,
      startMs: Date.now(),
      endMs: Date.now(),
      attributes: {},
      statusCode: 0,
    });
    await processor.forceFlush();
    expect(collector.requests).toEqual([]);
  });
});
