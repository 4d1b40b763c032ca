import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { describe, expect, it } from 'vitest';
import {
  authorizeUrl,
  CookieJar,
  DEFAULT_EXT,
  exchangeCode,
  introspect,
  location,
  navigate,
  PLATFORM,
  REDIRECT_URI,
  refresh,
  signIn,
  useTestServer,
} from './harness.ts';

const server = useTestServer();

describe('authorization code flow (RFC 6749 §4.1, RFC 7636)', () => {
  it('openid-client completes authorize → login → consent → code ory_ac_ → tokens; the JWT verifies against the JWKS', async () => {
    const config = await oidc.discovery(new URL(server.issuer), PLATFORM.clientId, undefined, oidc.None(), {
      execute: [oidc.allowInsecureRequests],
    });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid offline_access',
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
    });
    const jar = new CookieJar();
    let res = await navigate(jar, url.toString());
    expect(res.status).toBe(303);
    const login = location(res);
    expect(`${login.origin}${login.pathname}`).toBe(`${PLATFORM.origin}/account/login`);
    const loginChallenge = login.searchParams.get('login_challenge')!;

    const loginRequest = await fetch(
      `${server.admin}/admin/oauth2/auth/requests/login?login_challenge=${loginChallenge}`,
    ).then((r) => r.json());
    expect(loginRequest).toMatchObject({
      challenge: loginChallenge,
      skip: false,
      client: { client_id: 'platform' },
      requested_scope: ['openid', 'offline_access'],
    });
    expect(loginRequest.request_url).toContain(`${server.issuer}/oauth2/auth?`);

    const accepted = await fetch(
      `${server.admin}/admin/oauth2/auth/requests/login/accept?login_challenge=${loginChallenge}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          subject: 'identity-42',
          remember: true,
          remember_for: 86400,
          amr: ['password'],
          identity_provider_session_id: 'kratos-session-1',
        }),
      },
    ).then((r) => r.json());
    expect(accepted.redirect_to).toMatch(new RegExp(`^${server.issuer}/oauth2/auth/`));

    res = await navigate(jar, accepted.redirect_to);
    const consent = location(res);
    expect(`${consent.origin}${consent.pathname}`).toBe(`${PLATFORM.origin}/account/consent`);
    const consentChallenge = consent.searchParams.get('consent_challenge')!;
    const consentRequest = await fetch(
      `${server.admin}/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
    ).then((r) => r.json());
    expect(consentRequest).toMatchObject({
      challenge: consentChallenge,
      subject: 'identity-42',
      client: { client_id: 'platform' },
      requested_scope: ['openid', 'offline_access'],
      requested_access_token_audience: [],
      login_challenge: loginChallenge,
      identity_provider_session_id: 'kratos-session-1',
    });
    expect(consentRequest.login_session_id).toEqual(expect.any(String));

    const consentAccepted = await fetch(
      `${server.admin}/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
      {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          grant_scope: consentRequest.requested_scope,
          grant_access_token_audience: [],
          remember: false,
          session: { access_token: DEFAULT_EXT, id_token: { email: 'ada@acme.test' } },
        }),
      },
    ).then((r) => r.json());
    res = await navigate(jar, consentAccepted.redirect_to);
    const callback = location(res);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('code')).toMatch(/^ory_ac_/);
    expect(callback.searchParams.get('iss')).toBe(server.issuer);

    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(tokens.refresh_token).toMatch(/^ory_rt_/);
    expect(tokens.scope).toBe('openid offline_access');
    expect(tokens.claims()?.sub).toBe('identity-42');

    const jwks = createRemoteJWKSet(new URL(`${server.issuer}/.well-known/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: server.issuer,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: 'identity-42',
      client_id: 'platform',
      scp: ['openid', 'offline_access'],
      aud: ['urn:acme:api'],
      ext: DEFAULT_EXT,
    });
    expect(payload.exp! - payload.iat!).toBe(600);

    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, 'identity-42');
    expect(userinfo).toMatchObject({ sub: 'identity-42', email: 'ada@acme.test' });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).toMatch(/^ory_rt_/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(decodeJwt(refreshed.access_token).ext).toEqual(DEFAULT_EXT);
  });

  it('consent claims appear in the JWT and in introspection (ext, scp, client_id, sub, exp)', async () => {
    const ext = { user: { authenticationMode: 'ory' }, products: ['magic'], scopeGroups: ['a', 'b'] };
    const { callback, verifier } = await signIn(server, { subject: 'identity-7', ext });
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    const claims = decodeJwt(tokens.body.access_token as string);
    expect(claims).toMatchObject({
      ext,
      sub: 'identity-7',
      client_id: 'platform',
      scp: ['openid', 'offline_access'],
    });
    expect(claims.exp).toEqual(expect.any(Number));

    const at = await introspect(server, tokens.body.access_token as string);
    expect(at.body).toMatchObject({
      active: true,
      sub: 'identity-7',
      client_id: 'platform',
      scope: 'openid offline_access',
      token_use: 'access_token',
      iss: server.issuer,
      ext,
    });
    const rt = await introspect(server, tokens.body.refresh_token as string);
    expect(rt.body).toMatchObject({ active: true, token_use: 'refresh_token', sub: 'identity-7', ext });
    expect((await introspect(server, 'ory_rt_unknown')).body).toEqual({ active: false });
    expect((await introspect(server, `${tokens.body.access_token as string}x`)).body).toEqual({
      active: false,
    });
  });

  it('offline_access yields a refresh token without the client sending prompt=consent', async () => {
    const { callback, verifier } = await signIn(server);
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    expect(tokens.body.scope).toBe('openid offline_access');
    expect(tokens.body.refresh_token).toMatch(/^ory_rt_/);
  });
});

describe('PKCE (RFC 7636)', () => {
  it('RFC 7636: refuses an authorization request without code_challenge', async () => {
    const { url } = authorizeUrl(server.issuer, {
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    const res = await navigate(new CookieJar(), url);
    const target = location(res);
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
    expect(target.searchParams.get('error')).toBe('invalid_request');
  });

  it('RFC 7636: refuses code_challenge_method=plain', async () => {
    const { url } = authorizeUrl(server.issuer, { code_challenge_method: 'plain' });
    const target = location(await navigate(new CookieJar(), url));
    expect(target.searchParams.get('error')).toBe('invalid_request');
    expect(target.searchParams.get('error_description')).toMatch(/code_challenge_method/);
  });

  it('RFC 7636 §4.6: a wrong code_verifier answers invalid_grant', async () => {
    const { callback } = await signIn(server);
    const res = await exchangeCode(server, callback.searchParams.get('code')!, 'x'.repeat(43));
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('RFC 7636: a missing code_verifier answers invalid_grant', async () => {
    const { callback } = await signIn(server);
    const res = await exchangeCode(server, callback.searchParams.get('code')!, '');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/invalid_(grant|request)/);
  });
});

describe('authorization codes are single use (RFC 6749 §4.1.2, RFC 9700 §4.2.1)', () => {
  it('RFC 6749 §4.1.2: a reused code fails and revokes the tokens already issued from it', async () => {
    const { callback, verifier } = await signIn(server);
    const code = callback.searchParams.get('code')!;
    const first = await exchangeCode(server, code, verifier);
    expect(first.status).toBe(200);
    expect((await introspect(server, first.body.access_token as string)).body.active).toBe(true);

    const second = await exchangeCode(server, code, verifier);
    expect(second.status).toBe(400);
    expect(second.body.error).toBe('invalid_grant');

    expect((await introspect(server, first.body.access_token as string)).body).toEqual({ active: false });
    expect((await introspect(server, first.body.refresh_token as string)).body).toEqual({ active: false });
    const refreshed = await refresh(server, first.body.refresh_token as string);
    expect(refreshed.status).toBe(400);
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('RFC 9700 §4.2.1: two concurrent exchanges of one code yield tokens at most once', async () => {
    const { callback, verifier } = await signIn(server);
    const code = callback.searchParams.get('code')!;
    const results = await Promise.all([
      exchangeCode(server, code, verifier),
      exchangeCode(server, code, verifier),
    ]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.body.error).toBe('invalid_grant');
  });
});

describe('redirect URI exact match (RFC 9700 §4.1.3)', () => {
  it.each([
    ['a trailing slash', `${REDIRECT_URI}/`],
    ['a different port', 'http://localhost:4001/account/callback'],
    ['an extra path', `${REDIRECT_URI}/extra`],
    ['a different host', 'http://127.0.0.1:4000/account/callback'],
    ['a query string', `${REDIRECT_URI}?x=1`],
  ])(
    'RFC 9700 §4.1.3: refuses a redirect_uri with %s, without redirecting to it',
    async (_name, redirectUri) => {
      const { url } = authorizeUrl(server.issuer, { redirect_uri: redirectUri });
      const res = await navigate(new CookieJar(), url);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    },
  );

  it('refuses a token request whose redirect_uri differs from the authorization request', async () => {
    const { callback, verifier } = await signIn(server);
    const res = await fetch(`${server.issuer}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: `${REDIRECT_URI}/`,
        code_verifier: verifier,
        client_id: 'platform',
      }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_grant');
  });
});
