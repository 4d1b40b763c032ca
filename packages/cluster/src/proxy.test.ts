import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '@acme/test-kit/free-port';
import { startRoundRobinProxy, UPSTREAM_HEADER, type RoundRobinProxy } from './proxy.ts';

/** An upstream that answers with its name and what it was sent. */
async function upstream(name: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name,
          method: req.method,
          url: req.url,
          host: req.headers.host,
          forwardedFor: req.headers['x-forwarded-for'],
          forwardedHost: req.headers['x-forwarded-host'],
          body,
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) await s.close();
});

async function proxyFor(targets: string[]): Promise<RoundRobinProxy> {
  const proxy = await startRoundRobinProxy({ port: 0, targets });
  open.push(proxy);
  return proxy;
}

describe('round-robin proxy', () => {
  it('sends each request to the next instance and names it in a header', async () => {
    const a = await upstream('a');
    const b = await upstream('b');
    open.push(a.server, b.server);
    const proxy = await proxyFor([a.url, b.url]);
    const names: string[] = [];
    const headers: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${proxy.url}/x?i=${i}`);
      names.push(((await res.json()) as { name: string }).name);
      headers.push(res.headers.get(UPSTREAM_HEADER));
    }
    expect(names).toEqual(['a', 'b', 'a', 'b']);
    expect(headers).toEqual([a.url, b.url, a.url, b.url].map((u) => new URL(u).host));
  });

  it('passes the method, path, body and Host on, and adds X-Forwarded-For', async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([a.url]);
    const res = await fetch(`${proxy.url}/self-service/login?flow=1`, { method: 'POST', body: '{"x":1}' });
    expect(await res.json()).toEqual({
      name: 'a',
      method: 'POST',
      url: '/self-service/login?flow=1',
      host: `localhost:${proxy.port}`,
      forwardedFor: '127.0.0.1',
      body: '{"x":1}',
    });
  });

  it("replaces a client's X-Forwarded-For with the connection's address and drops its X-Forwarded-Host", async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([a.url]);
    const res = await fetch(`${proxy.url}/`, {
      headers: { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-host': 'evil.example' },
    });
    const seen = (await res.json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ forwardedFor: '127.0.0.1', host: `localhost:${proxy.port}` });
    expect(seen.forwardedHost).toBeUndefined();
  });

  it('answers 502 for an instance that is down, and the next request reaches the other', async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([`http://127.0.0.1:${await freePort()}`, a.url]);
    const down = await fetch(`${proxy.url}/`);
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({
      error: { code: 502, status: 'Bad Gateway', message: 'upstream unavailable' },
    });
    const up = await fetch(`${proxy.url}/`);
    expect(up.status).toBe(200);
  });

  it('skips an instance that refused a connection while another is up, without a second 502', async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([`http://127.0.0.1:${await freePort()}`, a.url]);
    expect((await fetch(`${proxy.url}/`)).status).toBe(502);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${proxy.url}/`)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('keeps connections to an instance alive across requests, including parallel ones', async () => {
    const a = await upstream('a');
    open.push(a.server);
    let connections = 0;
    a.server.on('connection', () => (connections += 1));
    const proxy = await proxyFor([a.url]);
    for (let i = 0; i < 5; i++) expect((await fetch(`${proxy.url}/${i}`)).status).toBe(200);
    expect(connections).toBe(1);
    const parallel = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(`${proxy.url}/p${i}`)));
    expect(parallel.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    await Promise.all(parallel.map((r) => r.text()));
    expect(connections).toBeLessThanOrEqual(20);
    for (let i = 0; i < 5; i++) expect((await fetch(`${proxy.url}/again${i}`)).status).toBe(200);
    expect(connections).toBeLessThanOrEqual(20);
  });

  it('streams a large request body to the instance and its answer back unchanged', async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([a.url]);
    const big = 'x'.repeat(3 * 1024 * 1024);
    const res = await fetch(`${proxy.url}/upload`, { method: 'PUT', body: big });
    const seen = (await res.json()) as { body: string; method: string };
    expect(seen.method).toBe('PUT');
    expect(seen.body.length).toBe(big.length);
  });

  it('drops the headers a client names in Connection instead of passing them on', async () => {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ secret: req.headers['x-hop'] ?? null, kept: req.headers['x-kept'] ?? null }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    open.push(server);
    const proxy = await proxyFor([`http://127.0.0.1:${(server.address() as AddressInfo).port}`]);
    // fetch() may not set Connection, so this request is written with node:http.
    const answer = await new Promise<string>((resolveAnswer, reject) => {
      request(
        `${proxy.url}/`,
        { headers: { connection: 'keep-alive, x-hop', 'x-hop': '1', 'x-kept': '2' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolveAnswer(body));
        },
      )
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(answer)).toEqual({ secret: null, kept: '2' });
  });

  it('passes on a request body sent with Expect: 100-continue', async () => {
    const a = await upstream('a');
    open.push(a.server);
    const proxy = await proxyFor([a.url]);
    const answer = await new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
      const req = request(
        `${proxy.url}/upload`,
        { method: 'POST', headers: { expect: '100-continue', 'content-length': '7' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolveAnswer({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('continue', () => req.end('{"x":1}'));
      req.on('error', reject);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ method: 'POST', body: '{"x":1}' });
  });
});
