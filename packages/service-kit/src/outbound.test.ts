import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkOutboundHost,
  checkOutboundUrl,
  fetchJson,
  isSpecialAddress,
  outboundFetch,
  type OutboundPolicy,
  type Resolve,
} from './outbound.ts';

// SSRF guards of the calls to an organisation's identity provider (the console's SSO checks, the
// identity service's sign-in): an org-admin names the URL, our server fetches it.

const production: OutboundPolicy = { httpHosts: [], allowPrivate: false, timeoutMs: 1000 };

describe('outbound requests to an identity provider', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":"x"}');
    });
    server.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => new Promise((resolve) => server.close(resolve)));

  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['8.8.8.8', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s is special: %s', (address, special) => {
    expect(isSpecialAddress(address)).toBe(special);
  });

  it.each([
    ['http://idp.example.com', 'not_https'],
    ['ftp://idp.example.com', 'not_https'],
    ['https://user:pw@idp.example.com', 'invalid_url'],
    ['https://169.254.169.254/latest', 'private_address'],
    ['https://[::1]/x', 'private_address'],
    ['https://10.0.0.8', 'private_address'],
    ['not a url', 'invalid_url'],
  ])('refuses %s before any request (%s)', (url, reason) => {
    expect(() => checkOutboundUrl(url, production)).toThrow(expect.objectContaining({ reason }));
  });

  it('SSRF by DNS: a name resolving to a loopback address is refused at connection time, nothing is sent', async () => {
    const before = hits;
    const policy = { ...production, httpHosts: ['localhost'] };
    await expect(
      fetchJson(`http://localhost:${port}/.well-known/openid-configuration`, policy),
    ).rejects.toThrow(expect.objectContaining({ reason: 'private_address' }));
    expect(hits).toBe(before);
  });

  it('SSRF through a saved issuer: a name resolving to loopback is refused when it is saved', async () => {
    await expect(checkOutboundHost('https://localhost/', production)).rejects.toThrow(
      expect.objectContaining({ reason: 'private_address' }),
    );
    await expect(
      checkOutboundHost('https://localhost/', { ...production, allowPrivate: true }),
    ).resolves.toBeInstanceOf(URL);
  });

  /** A DNS answering `first` once, then `after` (an attacker's name with a short TTL). */
  const rebinding = (first: string, after: string) => {
    const asked: string[] = [];
    const resolve: Resolve = async (hostname) => {
      asked.push(hostname);
      return [{ address: asked.length === 1 ? first : after, family: 4 }];
    };
    return { resolve, asked };
  };

  it('a hostname that rebinds to a private address after the check is not connected to', async () => {
    for (const inside of ['127.0.0.1', '10.0.0.1']) {
      const dns = rebinding('203.0.113.7', inside);
      const policy = { ...production, httpHosts: ['localhost'], resolve: dns.resolve };
      const url = `http://localhost:${port}/.well-known/openid-configuration`;
      // Saved: the name resolved to a public address then.
      await expect(checkOutboundHost(url, policy)).resolves.toBeInstanceOf(URL);
      const before = connections;
      await expect(fetchJson(url, policy)).rejects.toThrow(
        expect.objectContaining({ reason: 'private_address' }),
      );
      expect(dns.asked).toEqual(['localhost', 'localhost']);
      expect(connections).toBe(before);
    }
  });

  it('the connection goes to the address that was checked, never to a second resolution of the name', async () => {
    // The check inside the connection sees a public address; were the name resolved again to connect,
    // it would be loopback (the system's `localhost`), where the server counts connections.
    const dns = rebinding('203.0.113.7', '127.0.0.1');
    const policy = { ...production, httpHosts: ['localhost'], timeoutMs: 300, resolve: dns.resolve };
    const before = connections;
    await expect(fetchJson(`http://localhost:${port}/x`, policy)).rejects.toThrow(
      expect.objectContaining({ reason: expect.stringMatching(/^(timeout|unreachable)$/) }),
    );
    expect(dns.asked).toEqual(['localhost']);
    expect(connections).toBe(before);
  });

  it('a fetch for a client library (openid-client) is guarded the same way and answers a Response', async () => {
    const development = { ...production, httpHosts: ['localhost'], allowPrivate: true };
    const answer = await outboundFetch(development)(`http://localhost:${port}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(await answer.json()).toEqual({ issuer: 'x' });
    const before = hits;
    await expect(outboundFetch(production)(`http://idp.example.com/userinfo`)).rejects.toThrow(
      expect.objectContaining({ reason: 'not_https' }),
    );
    expect(hits).toBe(before);
  });

  it('a connection left open by an earlier request is not reused without the check', async () => {
    const development = { ...production, httpHosts: ['localhost'], allowPrivate: true };
    expect((await fetchJson(`http://localhost:${port}/one`, development)).status).toBe(200);
    const before = hits;
    await expect(
      outboundFetch({ ...production, httpHosts: ['localhost'] })(`http://localhost:${port}/jwks`),
    ).rejects.toThrow(expect.objectContaining({ reason: 'private_address' }));
    expect(hits).toBe(before);
  });

  it('the development policy (configured host, private allowed) reaches the stand-in', async () => {
    const policy = { ...production, httpHosts: ['localhost'], allowPrivate: true };
    const answer = await fetchJson(`http://localhost:${port}/x`, policy);
    expect(answer).toEqual({ status: 200, body: { issuer: 'x' } });
  });
});
