import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, useTestServer } from './harness.ts';

/**
 * Every URL the authorization server publishes comes from OAUTH2_PUBLIC_URL, never from a request's Host,
 * X-Forwarded-Host or X-Forwarded-Proto, even with proxy trust on: otherwise a request naming
 * another host poisons the discovery document (and any cache in front of it) with an attacker's
 * token endpoint and keys.
 */
const server = useTestServer({ env: { TRUST_PROXY: '1' } });

const SPOOFED = {
  host: 'evil.example:8443',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'https',
  'x-forwarded-for': '198.51.100.1',
};

/** GET with headers fetch cannot send (Host): status, headers and body text. */
function get(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>(
    (resolve, reject) => {
      const req = request(url.replace('//localhost:', '//127.0.0.1:'), { headers }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end();
    },
  );
}

const urlsIn = (meta: Record<string, unknown>) =>
  Object.entries(meta).filter(([, v]) => typeof v === 'string' && /^https?:/.test(v)) as [string, string][];

describe('public URLs come from the configured issuer', () => {
  it('the discovery document names the issuer, whatever the request says its host is', async () => {
    const plain = await get(`${server.issuer}/.well-known/openid-configuration`, {});
    const meta = JSON.parse(plain.text) as Record<string, unknown>;
    expect(urlsIn(meta).length).toBeGreaterThan(4);
    for (const [, url] of urlsIn(meta)) expect(url.startsWith(server.issuer)).toBe(true);
    expect(meta.jwks_uri).toBe(`${server.issuer}/.well-known/jwks.json`);
  });

  it('spoofed Host / X-Forwarded-Host / X-Forwarded-Proto do not change the discovery document', async () => {
    const plain = JSON.parse((await get(`${server.issuer}/.well-known/openid-configuration`, {})).text);
    const res = await get(`${server.issuer}/.well-known/openid-configuration`, SPOOFED);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('evil.example');
    expect(res.text).not.toContain('https:');
    expect(JSON.parse(res.text)).toEqual(plain);
  });

  it('spoofed X-Forwarded-Host does not change where the authorization endpoint sends the browser', async () => {
    const res = await get(authorizeUrl(server.issuer).url, SPOOFED);
    expect(res.status).toBe(303);
    const location = String(res.headers.location);
    expect(location).not.toContain('evil.example');
  });
});
