import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATIONS } from '../src/shared/config/applications.ts';
import { ACCESS_EMAIL_SLOT } from '../src/prerender/slots.ts';
import { LOGIN_ROOT_FILE } from './login-page.ts';
import type { ServedApp } from './serve.ts';
import { serveApp } from './serve.ts';

// The login route as the account app server answers it: the authorization redirect for a browser
// with nothing pending (PKCE made here and handed to the app), the page with the Email step in it
// otherwise.

const OAUTH2 = 'https://auth.acme.test';
const APP_ORIGIN = 'https://platform.acme.test';

let dist: string;
let app: ServedApp;

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'account-login-'));
  await mkdir(join(dist, '.vite'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>SPA</title><div id="root"></div>');
  await writeFile(
    join(dist, LOGIN_ROOT_FILE),
    `<main class="page"><h1>Welcome</h1><a href="mailto:${ACCESS_EMAIL_SLOT}">${ACCESS_EMAIL_SLOT}</a></main>`,
  );
  app = await serveApp({
    port: 0,
    application: 'platform',
    distDir: dist,
    config: {
      oauth2Url: OAUTH2,
      accessEmail: 'access+"x"@acme.test',
      urlMap: {
        ...Object.fromEntries(APPLICATIONS.map((a) => [a, `https://${a}.acme.test`])),
        platform: APP_ORIGIN,
      } as ServedApp['config']['urlMap'],
    },
  });
});

afterAll(async () => {
  await app.close();
  await rm(dist, { recursive: true, force: true });
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(app.url + path, { redirect: 'manual', headers });

function handoffOf(res: Response): { codeVerifier: string; state: string; expiration: number } {
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('oauth2_authorization_handoff='));
  if (!cookie) throw new Error('no hand-off cookie');
  return JSON.parse(decodeURIComponent(cookie.slice(cookie.indexOf('=') + 1, cookie.indexOf(';'))));
}

describe('the login route with nothing pending', () => {
  it('redirects to the authorization endpoint with PKCE S256 whose verifier the app is handed', async () => {
    const res = await get('/account/login');
    expect(res.status).toBe(302);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(`${OAUTH2}/oauth2/auth`);
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      client_id: 'platform',
      response_type: 'code',
      redirect_uri: `${APP_ORIGIN}/account/callback`,
      code_challenge_method: 'S256',
    });
    const handoff = handoffOf(res);
    expect(handoff.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('state')).toBe(handoff.state);
    const challenge = createHash('sha256').update(handoff.codeVerifier).digest('base64url');
    expect(location.searchParams.get('code_challenge')).toBe(challenge);
    const cookies = res.headers.getSetCookie();
    // This origin's only (no Domain), Secure on https, and the verifier never in the URL.
    expect(cookies.find((c) => c.startsWith('oauth2_authorization_handoff='))).not.toMatch(/Domain=/);
    expect(cookies.every((c) => c.includes('Secure') && c.includes('SameSite=Lax'))).toBe(true);
    expect(res.headers.get('location')).not.toContain(handoff.codeVerifier);
    expect(cookies.some((c) => c.startsWith('application=%22platform%22'))).toBe(true);
    expect(cookies.some((c) => c.startsWith('login_lock='))).toBe(true);
  });

  it('replayed verifier: every redirect has a fresh verifier and state, never one seen before', async () => {
    const seen = await Promise.all(Array.from({ length: 50 }, () => get('/account/login').then(handoffOf)));
    expect(new Set(seen.map((h) => h.codeVerifier)).size).toBe(50);
    expect(new Set(seen.map((h) => h.state)).size).toBe(50);
  });

  it('open redirect: the target is the configured authorization server, whatever the request says', async () => {
    const res = await get('/account/login', {
      host: 'evil.test',
      'x-forwarded-host': 'evil.test',
      'x-forwarded-proto': 'http',
      referer: 'https://evil.test/',
    });
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).toBe(OAUTH2);
    expect(location.searchParams.get('redirect_uri')).toBe(`${APP_ORIGIN}/account/callback`);
    // A query of any kind (return_to, a redirect_uri, a challenge) is the app's to read: no redirect.
    for (const query of [
      '?return_to=https://evil.test',
      '?redirect_uri=https://evil.test/account/callback',
      '?login_challenge=abc',
      '?post_logout=1',
    ]) {
      const other = await get(`/account/login${query}`);
      expect(other.status, query).toBe(200);
      expect(other.headers.get('location'), query).toBeNull();
    }
  });

  it('state mismatch guard: a browser with an authorization under way is not given a second one', async () => {
    // Another tab's authorization holds the lock, or its hand-off is still to be taken: the app decides.
    for (const cookie of [
      'login_lock=%7B%7D',
      'oauth2_authorization_handoff=x',
      'login_challenge=%22c%22',
      'oauth2_token=x',
      'email_verification_result=x',
      'reset_password_state=x',
      'cloud_sign_out_pending=true',
    ]) {
      const res = await get('/account/login', { cookie: `other=1; ${cookie}` });
      expect(res.status, cookie).toBe(200);
    }
  });

  it('only GET: HEAD gets the page', async () => {
    const res = await fetch(`${app.url}/account/login`, { method: 'HEAD', redirect: 'manual' });
    expect(res.status).toBe(200);
  });
});

describe('the login page', () => {
  it("carries the Email step with this application's access contact, escaped", async () => {
    const res = await get('/account/login?login_challenge=abc');
    const html = await res.text();
    expect(html).toContain('<div id="root"><main class="page"><h1>Welcome</h1>');
    expect(html).toContain('mailto:access+&quot;x&quot;@acme.test');
    expect(html).not.toContain(ACCESS_EMAIL_SLOT);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('is sent brotli-compressed to a browser that asks, and 304 on its ETag', async () => {
    const res = await get('/account/login?flow=1', { 'accept-encoding': 'gzip, br' });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    // fetch decodes the body by its Content-Encoding.
    expect(await res.text()).toContain('<h1>Welcome</h1>');
    const again = await get('/account/login?flow=1', {
      'accept-encoding': 'gzip, br',
      'if-none-match': res.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
  });

  it('leaves every other route the plain page', async () => {
    const html = await (await get('/account/settings')).text();
    expect(html).toContain('<div id="root"></div>');
  });
});
