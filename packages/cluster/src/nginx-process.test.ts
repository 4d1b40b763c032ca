import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePortsApart } from './free-ports.ts';
import { UPSTREAM_HEADER } from './nginx.ts';
import { startLoadBalancer, type LoadBalancer } from './nginx-process.ts';

/** An instance that answers with its name and what it was sent. */
async function instance(name: string): Promise<{ url: string; server: Server }> {
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
          requestId: req.headers['x-request-id'],
          bodyLength: body.length,
          body: body.slice(0, 100),
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const open: { close(): unknown }[] = [];
afterEach(async () => {
  for (const s of open.splice(0).reverse()) await s.close();
});

async function nginxFor(targets: string[]): Promise<LoadBalancer> {
  const lb = await startLoadBalancer(targets);
  open.push(lb);
  return lb;
}

async function twoInstances() {
  const a = await instance('a');
  const b = await instance('b');
  open.push(a.server, b.server);
  return [a, b] as const;
}

describe('nginx in front of several instances', () => {
  it('sends each request to the next instance and names it in a header', async () => {
    const [a, b] = await twoInstances();
    const lb = await nginxFor([a.url, b.url]);
    const names: string[] = [];
    const headers: (string | null)[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}/x?i=${i}`);
      names.push(((await res.json()) as { name: string }).name);
      headers.push(res.headers.get(UPSTREAM_HEADER));
    }
    expect(names).toEqual(['a', 'b', 'a', 'b']);
    expect(headers).toEqual([a.url, b.url, a.url, b.url].map((u) => new URL(u).host));
  });

  it('passes the method, path with its query, body and Host on, and sets X-Forwarded-For and a request id', async () => {
    const [a] = await twoInstances();
    const lb = await nginxFor([a.url]);
    const res = await fetch(`${lb.url}/self-service/login?flow=1`, { method: 'POST', body: '{"x":1}' });
    expect(await res.json()).toMatchObject({
      name: 'a',
      method: 'POST',
      url: '/self-service/login?flow=1',
      host: `localhost:${lb.port}`,
      forwardedFor: '127.0.0.1',
      requestId: expect.stringMatching(/^[0-9a-f]{32}$/),
      body: '{"x":1}',
    });
  });

  it("keeps the client's well-formed request id", async () => {
    const [a] = await twoInstances();
    const lb = await nginxFor([a.url]);
    const res = await fetch(`${lb.url}/`, { headers: { 'x-request-id': 'req-0123456789' } });
    expect(await res.json()).toMatchObject({ requestId: 'req-0123456789' });
  });

  it("replaces a client's X-Forwarded-For with the connection's address and drops its X-Forwarded-Host", async () => {
    const [a] = await twoInstances();
    const lb = await nginxFor([a.url]);
    const res = await fetch(`${lb.url}/`, {
      headers: { 'x-forwarded-for': '198.51.100.1', 'x-forwarded-host': 'evil.example' },
    });
    const seen = (await res.json()) as Record<string, unknown>;
    expect(seen).toMatchObject({ forwardedFor: '127.0.0.1', host: `localhost:${lb.port}` });
    expect(seen.forwardedHost).toBeUndefined();
  });

  it('sends a request whose instance refused the connection to the other one, POST included, and then skips it', async () => {
    const [a] = await twoInstances();
    const [downPort] = await freePortsApart(1);
    const lb = await nginxFor([`http://127.0.0.1:${downPort}`, a.url]);
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${lb.url}/`, { method: i % 2 ? 'POST' : 'GET', body: i % 2 ? '{}' : null });
      statuses.push(res.status);
      expect(((await res.json()) as { name: string }).name).toBe('a');
    }
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  it('answers 502 when no instance is up', async () => {
    const ports = await freePortsApart(2);
    const lb = await nginxFor(ports.map((p) => `http://127.0.0.1:${p}`));
    const res = await fetch(`${lb.url}/`);
    expect(res.status).toBe(502);
    await res.body?.cancel();
  });

  it("passes an instance's 503 and its Retry-After through unchanged, without trying another", async () => {
    const calls: string[] = [];
    const busy = (name: string) =>
      createServer((req, res) => {
        calls.push(name);
        res.writeHead(503, { 'retry-after': '2', 'content-type': 'application/json' });
        res.end('{"error":"temporarily_unavailable"}');
      });
    const servers = [busy('x'), busy('y')];
    for (const s of servers) await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    open.push(...servers);
    const lb = await nginxFor(servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`));
    for (let i = 0; i < 6; i++) {
      const res = await fetch(`${lb.url}/sessions/whoami`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(await res.json()).toEqual({ error: 'temporarily_unavailable' });
    }
    // One instance per request, and neither taken out: 503 is the instance's own answer.
    expect(calls).toEqual(['x', 'y', 'x', 'y', 'x', 'y']);
  });

  it('keeps connections to an instance alive across requests, including parallel ones', async () => {
    const [a] = await twoInstances();
    let connections = 0;
    a.server.on('connection', () => (connections += 1));
    const lb = await nginxFor([a.url]);
    for (let i = 0; i < 5; i++) expect((await fetch(`${lb.url}/${i}`)).status).toBe(200);
    expect(connections).toBe(1);
    const parallel = await Promise.all(Array.from({ length: 20 }, (_, i) => fetch(`${lb.url}/p${i}`)));
    expect(parallel.map((r) => r.status)).toEqual(Array.from({ length: 20 }, () => 200));
    await Promise.all(parallel.map((r) => r.text()));
    expect(connections).toBeLessThanOrEqual(20);
    for (let i = 0; i < 5; i++) expect((await fetch(`${lb.url}/again${i}`)).status).toBe(200);
    expect(connections).toBeLessThanOrEqual(20);
  });

  it('passes a request body up to 1 MB on unchanged and refuses a larger one with 413', async () => {
    const [a] = await twoInstances();
    const lb = await nginxFor([a.url]);
    const fits = 'x'.repeat(1000 * 1000);
    const res = await fetch(`${lb.url}/upload`, { method: 'PUT', body: fits });
    expect(await res.json()).toMatchObject({ method: 'PUT', bodyLength: fits.length });
    const tooLarge = await fetch(`${lb.url}/upload`, { method: 'PUT', body: 'x'.repeat(2 * 1024 * 1024) });
    expect(tooLarge.status).toBe(413);
    await tooLarge.body?.cancel();
  });

  it('passes on a request body sent with Expect: 100-continue', async () => {
    const [a] = await twoInstances();
    const lb = await nginxFor([a.url]);
    const answer = await new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
      const req = request(
        `${lb.url}/upload`,
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

  it('stops nginx and frees its port when the process that started it dies', async () => {
    // A child Node process starts nginx, prints its port and prefix, and is then killed with SIGKILL.
    const script = `
      import { startLoadBalancer } from ${JSON.stringify(new URL('./nginx-process.ts', import.meta.url).href)};
      const lb = await startLoadBalancer(['http://127.0.0.1:9']);
      console.log(JSON.stringify({ port: lb.port, pid: lb.pid, prefix: lb.prefix }));
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const started = await new Promise<{ port: number; prefix: string }>((resolveLine) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (out.includes('\n'))
          resolveLine(JSON.parse(out.split('\n')[0]!) as { port: number; prefix: string });
      });
    });
    expect((await fetch(`http://127.0.0.1:${started.port}/`)).status).toBe(502);
    child.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    let up = true;
    while (up && Date.now() < deadline) {
      up = await fetch(`http://127.0.0.1:${started.port}/`).then(
        () => true,
        () => false,
      );
      if (up) await new Promise((r) => setTimeout(r, 100));
    }
    expect(up).toBe(false);
    // The prefix stays (only close() removes it); the pid file went with nginx.
    expect(existsSync(`${started.prefix}/nginx.pid`)).toBe(false);
  }, 30_000);
});
