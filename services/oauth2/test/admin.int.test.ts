import { describe, expect, it } from 'vitest';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  location,
  navigate,
  REDIRECT_URI,
  signIn,
  useTestServer,
} from './harness.ts';

const server = useTestServer();

const LOGIN = '/admin/oauth2/auth/requests/login';
const CONSENT = '/admin/oauth2/auth/requests/consent';

async function pendingLogin(overrides: Record<string, string | undefined> = {}) {
  const jar = new CookieJar();
  const { url, state } = authorizeUrl(server.issuer, overrides);
  const res = await navigate(jar, url);
  const challenge = location(res).searchParams.get('login_challenge')!;
  return { jar, challenge, state };
}

describe('admin login requests (Hydra)', () => {
  it('answers 410 with redirect_to for a login challenge that was already accepted', async () => {
    const { challenge } = await pendingLogin();
    const accepted = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      subject: 'identity-1',
    });
    expect(accepted.status).toBe(200);

    const again = await adminJson(server, 'GET', `${LOGIN}?login_challenge=${challenge}`);
    expect(again.status).toBe(410);
    expect(again.body.redirect_to).toEqual(expect.stringContaining(`${server.issuer}/oauth2/auth?`));
    const acceptAgain = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      subject: 'identity-1',
    });
    expect(acceptAgain.status).toBe(410);
  });

  it('answers 410 for a login challenge after the browser resumed (interaction finished)', async () => {
    const { loginChallenge, consentChallenge } = await signIn(server);
    expect((await adminJson(server, 'GET', `${LOGIN}?login_challenge=${loginChallenge!}`)).status).toBe(410);
    expect((await adminJson(server, 'GET', `${CONSENT}?consent_challenge=${consentChallenge}`)).status).toBe(
      410,
    );
    const reaccept = await adminJson(
      server,
      'PUT',
      `${CONSENT}/accept?consent_challenge=${consentChallenge}`,
      {
        grant_scope: ['openid'],
      },
    );
    expect(reaccept.status).toBe(410);
    expect(reaccept.body.redirect_to).toEqual(expect.any(String));
  });

  it('answers 404 in the OAuth2 shape for unknown challenges', async () => {
    for (const path of [`${LOGIN}?login_challenge=nope`, `${CONSENT}?consent_challenge=nope`]) {
      const res = await adminJson(server, 'GET', path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'not_found', error_description: expect.any(String) });
    }
    const logout = await adminJson(server, 'GET', '/admin/oauth2/auth/requests/logout?logout_challenge=nope');
    expect(logout.status).toBe(404);
    const accept = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=nope`, { subject: 'x' });
    expect(accept.status).toBe(404);
  });

  it('answers 404 when a consent challenge is used as a login challenge', async () => {
    const { consentChallenge } = await (async () => {
      const { challenge, jar } = await pendingLogin();
      const accepted = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
        subject: 'identity-1',
      });
      const res = await navigate(jar, accepted.body.redirect_to as string);
      return { consentChallenge: location(res).searchParams.get('consent_challenge')! };
    })();
    expect((await adminJson(server, 'GET', `${LOGIN}?login_challenge=${consentChallenge}`)).status).toBe(404);
  });

  it('RFC 6749 §4.1.2.1: a rejected login sends the browser to redirect_uri with error=access_denied and state', async () => {
    const { jar, challenge, state } = await pendingLogin();
    const rejected = await adminJson(server, 'PUT', `${LOGIN}/reject?login_challenge=${challenge}`, {
      error: 'access_denied',
      error_description: 'The user said no',
    });
    expect(rejected.status).toBe(200);
    const target = location(await navigate(jar, rejected.body.redirect_to as string));
    expect(`${target.origin}${target.pathname}`).toBe(REDIRECT_URI);
    expect(target.searchParams.get('error')).toBe('access_denied');
    expect(target.searchParams.get('state')).toBe(state);
    expect(target.searchParams.get('code')).toBeNull();
  });

  it('a rejected consent sends the browser to redirect_uri with error=access_denied', async () => {
    const { challenge, jar } = await pendingLogin();
    const accepted = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      subject: 'identity-1',
    });
    const consent = location(await navigate(jar, accepted.body.redirect_to as string));
    const consentChallenge = consent.searchParams.get('consent_challenge')!;
    const rejected = await adminJson(
      server,
      'PUT',
      `${CONSENT}/reject?consent_challenge=${consentChallenge}`,
      {},
    );
    const target = location(await navigate(jar, rejected.body.redirect_to as string));
    expect(target.searchParams.get('error')).toBe('access_denied');
  });

  it('a resume without the browser cookie does not complete the flow', async () => {
    const { challenge } = await pendingLogin();
    const accepted = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      subject: 'identity-1',
    });
    const res = await navigate(new CookieJar(), accepted.body.redirect_to as string);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'access_denied' });
  });
});

describe('admin API bad input answers OAuth2 errors, never 5xx', () => {
  it('missing challenge parameter → 400 invalid_request', async () => {
    const res = await adminJson(server, 'GET', LOGIN);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('login accept without subject → 400 invalid_request', async () => {
    const { challenge } = await pendingLogin();
    const res = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      remember: true,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'invalid_request' });
    // The challenge is still pending and usable.
    expect((await adminJson(server, 'GET', `${LOGIN}?login_challenge=${challenge}`)).status).toBe(200);
  });

  it('wrongly typed fields → 400 invalid_request', async () => {
    const { challenge } = await pendingLogin();
    const res = await adminJson(server, 'PUT', `${LOGIN}/accept?login_challenge=${challenge}`, {
      subject: 42,
      amr: 'password',
    });
    expect(res.status).toBe(400);
  });

  it('malformed JSON → 400 invalid_request', async () => {
    const { challenge } = await pendingLogin();
    const res = await fetch(`${server.admin}${LOGIN}/accept?login_challenge=${challenge}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"subject":',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('unsupported content type → 415 invalid_request', async () => {
    const res = await fetch(`${server.admin}${LOGIN}/accept?login_challenge=x`, {
      method: 'PUT',
      headers: { 'content-type': 'text/xml' },
      body: '<x/>',
    });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('an oversize body → 413 invalid_request', async () => {
    const res = await fetch(`${server.admin}${LOGIN}/accept?login_challenge=x`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: 'x'.repeat(200_000) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('unknown route → 404 not_found', async () => {
    const res = await adminJson(server, 'GET', '/admin/nothing');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });

  it('introspection without a token → 400 invalid_request; garbage token → inactive', async () => {
    const missing = await fetch(`${server.admin}/admin/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(missing.status).toBe(400);
    for (const token of ['garbage', 'a.b.c', 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.']) {
      const res = await fetch(`${server.admin}/admin/oauth2/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ active: false });
    }
  });
});
