import { describe, expect, it } from 'vitest';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  exchangeCode,
  location,
  navigate,
  PLATFORM,
  refresh,
  signIn,
  useTestServer,
} from './harness.ts';

const server = useTestServer();

const LOGOUT = '/admin/oauth2/auth/requests/logout';

async function startLogout(jar: CookieJar, query = 'client_id=platform') {
  const res = await navigate(jar, `${server.issuer}/oauth2/sessions/logout?${query}`);
  expect(res.status).toBe(303);
  return location(res);
}

describe('logout through the app (Hydra logout challenge, OpenID RP-Initiated Logout)', () => {
  it('session → app logout page → admin accept → verifier page posts confirm → app login page; the session is gone', async () => {
    const { jar, callback, verifier } = await signIn(server, { subject: 'identity-9' });
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);

    const appLogout = await startLogout(jar);
    expect(`${appLogout.origin}${appLogout.pathname}`).toBe(`${PLATFORM.origin}/account/logout`);
    const challenge = appLogout.searchParams.get('logout_challenge')!;

    const request = await adminJson(server, 'GET', `${LOGOUT}?logout_challenge=${challenge}`);
    expect(request.status).toBe(200);
    expect(request.body).toMatchObject({
      challenge,
      subject: 'identity-9',
      rp_initiated: true,
      client: { client_id: 'platform' },
      sid: expect.any(String),
      request_url: expect.stringContaining('/oauth2/sessions/logout'),
    });

    // Like Hydra SDKs: a JSON content type with an empty body.
    const acceptRes = await fetch(`${server.admin}${LOGOUT}/accept?logout_challenge=${challenge}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
    });
    expect(acceptRes.status).toBe(200);
    const redirectTo = ((await acceptRes.json()) as { redirect_to: string }).redirect_to;
    expect(redirectTo).toMatch(new RegExp(`^${server.issuer}/oauth2/sessions/logout\\?logout_verifier=`));
    expect((await adminJson(server, 'GET', `${LOGOUT}?logout_challenge=${challenge}`)).status).toBe(410);

    const page = await navigate(jar, redirectTo);
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const html = await page.text();
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).not.toContain('unsafe-inline');
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain(`action="${server.issuer}/oauth2/sessions/logout/confirm"`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1];
    expect(xsrf).toBeTruthy();

    const confirmed = await navigate(jar, `${server.issuer}/oauth2/sessions/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf: xsrf!, logout: 'yes' }).toString(),
    });
    expect(confirmed.status).toBe(303);
    expect(location(confirmed).toString()).toBe(`${PLATFORM.origin}/account/login`);

    // The verifier works once.
    const replay = await navigate(jar, redirectTo);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_request' });

    // The next authorization asks for a login again.
    const { url } = authorizeUrl(server.issuer);
    const again = location(await navigate(jar, url));
    expect(again.searchParams.get('login_challenge')).toBeTruthy();

    // Offline refresh tokens persist logout (the app drops its token at logout anyway).
    expect((await refresh(server, tokens.body.refresh_token as string)).status).toBe(200);
  });

  it('without a session, redirects to the default application login page', async () => {
    const res = await navigate(new CookieJar(), `${server.issuer}/oauth2/sessions/logout`);
    expect(res.status).toBe(303);
    expect(location(res).toString()).toBe(`${PLATFORM.origin}/account/login`);
  });

  it('without a session, honours a registered post_logout_redirect_uri with state', async () => {
    const target = 'http://localhost:4001/account/login';
    const res = await navigate(
      new CookieJar(),
      `${server.issuer}/oauth2/sessions/logout?client_id=magic&post_logout_redirect_uri=${encodeURIComponent(target)}&state=abc12345`,
    );
    expect(location(res).toString()).toBe(`${target}?state=abc12345`);
  });

  it('without a session, never redirects to an unregistered post_logout_redirect_uri', async () => {
    const res = await navigate(
      new CookieJar(),
      `${server.issuer}/oauth2/sessions/logout?client_id=platform&post_logout_redirect_uri=${encodeURIComponent('https://evil.example/')}`,
    );
    expect(location(res).toString()).toBe(`${PLATFORM.origin}/account/login`);
  });

  it('a logout started by the MAGIC client goes to the MAGIC app', async () => {
    const { jar } = await signIn(server);
    const appLogout = await startLogout(jar, 'client_id=magic');
    expect(appLogout.origin).toBe('http://localhost:4001');
  });

  it('without client_id, a session that signed in to MAGIC only is logged out through the MAGIC app', async () => {
    const { jar } = await signIn(server, {
      authorize: { client_id: 'magic', redirect_uri: 'http://localhost:4001/account/callback' },
    });
    const appLogout = await startLogout(jar, '');
    expect(`${appLogout.origin}${appLogout.pathname}`).toBe('http://localhost:4001/account/logout');
    const challenge = appLogout.searchParams.get('logout_challenge')!;
    const request = await adminJson(server, 'GET', `${LOGOUT}?logout_challenge=${challenge}`);
    expect(request.body.client).toMatchObject({ client_id: 'magic' });
    const accepted = await adminJson(server, 'PUT', `${LOGOUT}/accept?logout_challenge=${challenge}`);
    const html = await (await navigate(jar, accepted.body.redirect_to as string)).text();
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)![1]!;
    const confirmed = await navigate(jar, `${server.issuer}/oauth2/sessions/logout/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(location(confirmed).toString()).toBe('http://localhost:4001/account/login');
  });

  it('a rejected logout answers 204 and then 410', async () => {
    const { jar } = await signIn(server);
    const challenge = (await startLogout(jar)).searchParams.get('logout_challenge')!;
    const res = await fetch(`${server.admin}${LOGOUT}/reject?logout_challenge=${challenge}`, {
      method: 'PUT',
    });
    expect(res.status).toBe(204);
    expect((await adminJson(server, 'PUT', `${LOGOUT}/accept?logout_challenge=${challenge}`)).status).toBe(
      410,
    );
  });

  it('an unknown logout verifier answers 400 invalid_request', async () => {
    const res = await navigate(
      new CookieJar(),
      `${server.issuer}/oauth2/sessions/logout?logout_verifier=nope`,
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });
});
