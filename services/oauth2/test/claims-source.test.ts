import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClaimsSource } from '../src/claims-source.ts';

// The user service behind a load balancer that reloads, or an instance that drains, closes a
// kept-alive connection: a call whose connection fails before any answer is tried once more.
let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A user service whose first `drop` connections are closed without an answer. */
async function userService(drop: number): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  server = createServer((req, res) => {
    calls++;
    if (calls <= drop) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: { ext: {} }, id_token: {} }));
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls: () => calls };
}

const input = { subject: 's', identitySessionId: 'i', clientId: 'platform', scope: ['openid'] } as never;

describe('the claims source (the user service admin API, read on every refresh)', () => {
  it('a connection closed before any answer is tried once more, and the refresh gets its claims', async () => {
    const users = await userService(1);
    const source = createClaimsSource(users.url, 2000, undefined);
    await expect(source.fetch(input)).resolves.toMatchObject({ kind: 'granted' });
    expect(users.calls()).toBe(2);
  });

  it('only once: a second failure is "unavailable", never a third attempt', async () => {
    const users = await userService(5);
    const source = createClaimsSource(users.url, 2000, undefined);
    await expect(source.fetch(input)).rejects.toMatchObject({ name: 'ClaimsSourceUnavailable' });
    expect(users.calls()).toBe(2);
  });
});
