import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceLogger } from './logging.ts';
import {
  currentRequestId,
  handleWithRequestId,
  isWellFormedRequestId,
  registerRequestId,
  requestIdHeaders,
  requestIdOptions,
} from './request-id.ts';

// A downstream service that records the headers it receives.
let downstream: Server;
let downstreamUrl: string;
const seen: IncomingHttpHeaders[] = [];
const lines: string[] = [];
let app: FastifyInstance;
let appUrl: string;

beforeAll(async () => {
  downstream = createServer((req, res) => {
    seen.push(req.headers);
    res.end('{}');
  });
  await new Promise<void>((r) => downstream.listen(0, '127.0.0.1', r));
  downstreamUrl = `http://127.0.0.1:${(downstream.address() as AddressInfo).port}`;

  const logger = createServiceLogger('test', 'info', {
    destination: { write: (s: string) => lines.push(s) },
  });
  app = Fastify({ loggerInstance: logger as FastifyBaseLogger, ...requestIdOptions() });
  registerRequestId(app);
  // The id must survive body parsing (socket events) and awaits, up to the outbound call.
  app.post('/call', async (req) => {
    await new Promise((r) => setTimeout(r, 5));
    req.log.info({ body: req.body }, 'calling downstream');
    await fetch(`${downstreamUrl}/x`, { headers: requestIdHeaders() });
    return { seenInHandler: currentRequestId() };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  appUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await new Promise((r) => downstream.close(r));
});

const post = (headers: Record<string, string> = {}) =>
  fetch(`${appUrl}/call`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ password: 'hunter2-secret', code: 'code-7f3e9a-never-logged', note: 'hello' }),
  });

describe('request ids', () => {
  it('honours a well-formed incoming id: echoed, current in the handler, forwarded, on every log line', async () => {
    const id = 'req-abcdef-9f8e7d';
    const res = await post({ 'x-request-id': id });
    expect(res.headers.get('x-request-id')).toBe(id);
    expect(await res.json()).toEqual({ seenInHandler: id });
    expect(seen.at(-1)?.['x-request-id']).toBe(id);
    const mine = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.requestId === id);
    expect(mine.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['incoming request', 'calling downstream', 'request completed']),
    );
    const all = lines.join('');
    expect(all).not.toContain('hunter2-secret');
    expect(all).not.toContain('code-7f3e9a-never-logged');
    expect(all).toContain('hello');
  });

  it('replaces a malformed id with a new one', async () => {
    for (const bad of ['short', 'has spaces in it', 'x'.repeat(129), 'quote"inside-it']) {
      const res = await post({ 'x-request-id': bad });
      const id = res.headers.get('x-request-id');
      expect(id).not.toBe(bad);
      expect(isWellFormedRequestId(id)).toBe(true);
      expect(seen.at(-1)?.['x-request-id']).toBe(id);
    }
  });

  it('generates one when none is sent, different per request', async () => {
    const a = (await post()).headers.get('x-request-id');
    const b = (await post()).headers.get('x-request-id');
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(b).not.toBe(a);
  });

  it('outside a request there is no id and nothing is forwarded', () => {
    expect(currentRequestId()).toBeUndefined();
    expect(requestIdHeaders()).toEqual({});
  });

  it('works for a plain Node handler too', async () => {
    const server = createServer(
      handleWithRequestId((_req, res) => {
        setTimeout(() => res.end(currentRequestId() ?? 'none'), 1);
      }),
    );
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      const res = await fetch(url, { headers: { 'x-request-id': 'plain-handler-id-1' } });
      expect(res.headers.get('x-request-id')).toBe('plain-handler-id-1');
      expect(await res.text()).toBe('plain-handler-id-1');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
