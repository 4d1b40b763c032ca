import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHydraClient } from './hydra.ts';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** An authorization server's admin API whose first `drop` requests lose their connection unanswered. */
async function adminApi(drop: number): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  server = createServer((req, res) => {
    calls++;
    if (calls <= drop) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ challenge: 'c', skip: false, subject: 's', redirect_to: 'https://x.test/' }));
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls };
}

describe('hydra admin client', () => {
  it('sends the admin key as a bearer token when one is configured', async () => {
    const seen: (string | null)[] = [];
    const fakeFetch = (async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers).get('authorization'));
      return new Response(JSON.stringify({ challenge: 'c', skip: false, subject: '' }), { status: 200 });
    }) as typeof fetch;
    await createHydraClient('http://admin.test', fakeFetch, 'k'.repeat(40)).getLoginRequest('c');
    await createHydraClient('http://admin.test', fakeFetch).getLoginRequest('c');
    expect(seen).toEqual([`Bearer ${'k'.repeat(40)}`, null]);
  });

  // A rolling restart behind the load balancer: its reload closes the kept-alive connection a
  // sign-in's call is sent on. A sign-in must not fail for it (502 "could not be reached").
  it('rolling restart: a connection closed before any answer does not fail the sign-in (read and accept sent once more)', async () => {
    const api = await adminApi(1);
    const hydra = createHydraClient(api.url);
    await expect(hydra.getLoginRequest('c')).resolves.toMatchObject({ subject: 's' });
    expect(api.calls()).toBe(2);
    const again = await adminApi(1);
    await expect(createHydraClient(again.url).acceptLoginRequest('c', { subject: 's' })).resolves.toEqual({
      redirect_to: 'https://x.test/',
    });
    expect(again.calls()).toBe(2);
  });

  it('only once: an authorization server that keeps dropping the connection is 502, after two attempts', async () => {
    const api = await adminApi(5);
    await expect(createHydraClient(api.url).getLoginRequest('c')).rejects.toMatchObject({ status: 502 });
    expect(api.calls()).toBe(2);
  });
});
