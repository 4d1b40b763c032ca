import { describe, expect, it } from 'vitest';
import { CookieJar, navigate, signIn, useTestServer, tokenRequest } from './harness.ts';

const server = useTestServer();

describe('discovery and keys', () => {
  it('OpenID Discovery: serves Hydra’s endpoint paths, S256 only, no development interactions', async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/oauth2/auth`,
      token_endpoint: `${server.issuer}/oauth2/token`,
      end_session_endpoint: `${server.issuer}/oauth2/sessions/logout`,
      revocation_endpoint: `${server.issuer}/oauth2/revoke`,
      userinfo_endpoint: `${server.issuer}/userinfo`,
      jwks_uri: `${server.issuer}/.well-known/jwks.json`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    expect(meta.introspection_endpoint).toBeUndefined();
    expect((await fetch(`${server.issuer}/interaction/x`)).status).toBe(404);
  });

  it('JWKS: an ES256 key (access tokens) and an RS256 key (ID tokens), public parts only', async () => {
    const jwks = await fetch(`${server.issuer}/.well-known/jwks.json`).then((r) => r.json());
    expect(jwks.keys).toHaveLength(2);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(jwks.keys[1]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    for (const key of jwks.keys)
      for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(key[member]).toBeUndefined();
  });
});

describe('CORS for the SPA origins (clientBasedCORS)', () => {
  it('allows the registered app origin to call /oauth2/token, and not another origin', async () => {
    const form = { grant_type: 'refresh_token', refresh_token: 'ory_rt_nope', client_id: 'platform' };
    const allowed = await tokenRequest(server, form, { origin: 'http://localhost:4000' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:4000');
    const other = await tokenRequest(server, form, { origin: 'http://localhost:4001' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const evil = await tokenRequest(server, form, { origin: 'https://evil.example' });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('allows the app origins to call /userinfo (preflight and response)', async () => {
    const preflight = await fetch(`${server.issuer}/userinfo`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:4001', 'access-control-request-headers': 'authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:4001');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    const evil = await fetch(`${server.issuer}/userinfo`, { headers: { origin: 'https://evil.example' } });
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the preflight for the token endpoint', async () => {
    const res = await fetch(`${server.issuer}/oauth2/token`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:4001',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
  });
});

describe('token endpoint bad input answers OAuth2 errors, never 5xx (RFC 6749 §5.2)', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['missing grant_type', { client_id: 'platform' }, 'invalid_request'],
    ['unknown grant_type', { grant_type: 'password', client_id: 'platform' }, 'unsupported_grant_type'],
    [
      // Enabled for API clients only (api-clients.int.test.ts): a browser client may not use it.
      'client_credentials from a browser client',
      { grant_type: 'client_credentials', client_id: 'platform' },
      'invalid_request',
    ],
    ['missing code', { grant_type: 'authorization_code', client_id: 'platform' }, 'invalid_request'],
    [
      'unknown code',
      {
        grant_type: 'authorization_code',
        code: 'ory_ac_nope',
        code_verifier: 'x'.repeat(43),
        redirect_uri: 'http://localhost:4000/account/callback',
        client_id: 'platform',
      },
      'invalid_grant',
    ],
    ['missing refresh_token', { grant_type: 'refresh_token', client_id: 'platform' }, 'invalid_request'],
    [
      'unknown refresh_token',
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'platform' },
      'invalid_grant',
    ],
    [
      'unknown client',
      { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nope' },
      'invalid_client',
    ],
    ['missing client', { grant_type: 'refresh_token', refresh_token: 'x' }, 'invalid_request'],
  ];
  it.each(cases)('RFC 6749 §5.2: %s → %s', async (_name, form, error) => {
    const res = await tokenRequest(server, form);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body.error).toBe(error);
    expect(res.body.error_description).toEqual(expect.any(String));
  });

  it('RFC 6749 §3.2: a JSON body is refused with invalid_request', async () => {
    const res = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token' }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('an oversize body is refused with invalid_request', async () => {
    const res = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&client_id=platform&refresh_token=${'a'.repeat(200_000)}`,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('duplicate parameters are refused', async () => {
    const res = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&grant_type=authorization_code&client_id=platform',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_request');
  });

  it('malformed percent-encoding is refused', async () => {
    const res = await fetch(`${server.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=%E0%A4%A&client_id=platform',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});

describe('authorization endpoint and others: bad input', () => {
  it('an unknown client answers JSON invalid_client, never a redirect', async () => {
    const res = await navigate(
      new CookieJar(),
      `${server.issuer}/oauth2/auth?client_id=nope&response_type=code&redirect_uri=https://evil.example/cb`,
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
  });

  it('an unsupported response_type is reported to the redirect_uri', async () => {
    const res = await navigate(
      new CookieJar(),
      `${server.issuer}/oauth2/auth?client_id=platform&response_type=token&redirect_uri=${encodeURIComponent('http://localhost:4000/account/callback')}&scope=openid&state=abcdefgh`,
    );
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toContain('error=unsupported_response_type');
  });

  it('an unknown path answers 404 JSON', async () => {
    const res = await fetch(`${server.issuer}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
  });

  it('/userinfo without a valid token answers 401 invalid_token', async () => {
    const res = await fetch(`${server.issuer}/userinfo`, { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('RFC 7009: revoking an unknown token answers 200', async () => {
    const res = await fetch(`${server.issuer}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'ory_rt_nope', client_id: 'platform' }),
    });
    expect(res.status).toBe(200);
  });

  it('a second authorization in the same browser skips login and goes straight to consent', async () => {
    const { jar } = await signIn(server);
    const again = await signIn(server, { jar });
    expect(again.loginChallenge).toBeNull();
    expect(again.callback.searchParams.get('code')).toMatch(/^ory_ac_/);
  });
});
