import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkOutboundHost,
  checkOutboundUrl,
  fetchJson,
  isSpecialAddress,
  type OutboundPolicy,
} from './sso-outbound.ts';

// SSRF guards of the console's SSO checks: an org-admin names the URL, our server fetches it.

const production: OutboundPolicy = { httpHosts: [], allowPrivate: false, timeoutMs: 1000 };

describe('console SSO outbound requests', () => {
  let server: Server;
  let port = 0;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"issuer":"x"}');
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

  it('the development policy (configured host, private allowed) reaches the stand-in', async () => {
    const policy = { ...production, httpHosts: ['localhost'], allowPrivate: true };
    const answer = await fetchJson(`http://localhost:${port}/x`, policy);
    expect(answer).toEqual({ status: 200, body: { issuer: 'x' } });
  });
});
