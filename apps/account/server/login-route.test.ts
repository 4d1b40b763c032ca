import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPLICATIONS } from '../src/shared/config/applications.ts';
import { ACCESS_EMAIL_SLOT } from '../src/prerender/slots.ts';
import { loginRootFile } from './login-page.ts';
import type { ServedApp } from './serve.ts';
import { serveApp } from './serve.ts';

// The login route as the account app server answers it: the authorization redirect for a browser
// with nothing pending (PKCE made here and handed to the app), the page with the Email step in it
// otherwise.

const OAUTH2 = 'https://auth.acme.test';
const APP_ORIGIN = 'https://platform.acme.test';
const STYLESHEET = '.card{padding:1rem}.page{display:grid}';

let dist: string;
let app: ServedApp;

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'account-login-'));
  await mkdir(join(dist, '.vite'));
  await mkdir(join(dist, 'assets'));
  await writeFile(join(dist, 'assets', 'index-abc.css'), STYLESHEET);
  await writeFile(
    join(dist, 'index.html'),
    '<!doctype html><html lang="en"><head><title>SPA</title><script type="module" crossorigin src="/account/assets/index-abc.js"></script>\n<link rel="modulepreload" crossorigin href="/account/assets/shared-abc.js">\n<link rel="stylesheet" crossorigin href="/account/assets/index-abc.css"></head><body><div id="root"></div></body></html>',
  );
  for (const [locale, heading] of [
    ['en', 'Welcome'],
    ['de', 'Willkommen'],
  ] as const)
    await writeFile(
      join(dist, loginRootFile(locale)),
      `<main class="page"><h1>${heading}</h1><a href="mailto:${ACCESS_EMAIL_SLOT}">${ACCESS_EMAIL_SLOT}</a></main>`,
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

  it('carries the stylesheet itself, which its CSP allows by hash and nothing else inline', async () => {
    const res = await get('/account/login?login_challenge=abc');
    const html = await res.text();
    expect(html).toContain(`<style>${STYLESHEET}</style>`);
    expect(html).not.toContain('rel="stylesheet"');
    // The first paint waits for the whole Email step, as it waited for the linked stylesheet.
    expect(html).toMatch(
      /<link rel="expect" href="#login-root-end" blocking="render">.*<div id="root">.*<\/div><template id="login-root-end"><\/template>/s,
    );
    const hash = createHash('sha256').update(STYLESHEET).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(new RegExp(`style-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}';`));
    expect(csp).not.toContain('unsafe-inline');
    // Every other page links the stylesheet, under the policy without the hash.
    const other = await get('/account/settings');
    expect(await other.text()).toContain('rel="stylesheet"');
    expect(other.headers.get('content-security-policy')).toContain("style-src 'self';");
  });

  it('asks for the app’s modules from an inline script (after the first paint), which its CSP allows by hash and nothing else inline', async () => {
    const res = await get('/account/login?login_challenge=abc');
    const html = await res.text();
    expect(html).not.toContain('<script type="module"');
    expect(html).not.toContain('<link rel="modulepreload"');
    const inline = /<script>(.*?)<\/script><\/head>/s.exec(html)?.[1];
    expect(inline, 'the inline script closes the head').toBeDefined();
    expect(inline).toContain('"/account/assets/index-abc.js"');
    expect(inline).toContain('["/account/assets/shared-abc.js"]');
    expect(inline).toContain('first-contentful-paint');
    const hash = createHash('sha256').update(inline!).digest('base64');
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`script-src 'self' 'sha256-${hash}';`);
    expect(csp).not.toContain('unsafe-inline');
    // Every other page loads the module itself, under the policy without the hash.
    const other = await get('/account/settings');
    expect(await other.text()).toContain(
      '<script type="module" crossorigin src="/account/assets/index-abc.js">',
    );
    expect(other.headers.get('content-security-policy')).toContain("script-src 'self';");
  });

  it('is sent brotli-compressed to a browser that asks, and 304 on its ETag', async () => {
    const res = await get('/account/login?flow=1', { 'accept-encoding': 'gzip, br' });
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept-Language, Cookie');
    // fetch decodes the body by its Content-Encoding.
    expect(await res.text()).toContain('<h1>Welcome</h1>');
    const again = await get('/account/login?flow=1', {
      'accept-encoding': 'gzip, br',
      'if-none-match': res.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
  });

  it('a shared cache serves one reader’s language to another: no, the card is in the reader’s locale (their setting’s cookie, else Accept-Language), each with its own ETag, and the page varies by both', async () => {
    const english = await get('/account/login?flow=1', { 'accept-language': 'en-GB,en;q=0.9' });
    const german = await get('/account/login?flow=1', { 'accept-language': 'de-DE,de;q=0.9' });
    const englishHtml = await english.text();
    const germanHtml = await german.text();
    expect(englishHtml).toContain('<html lang="en"><head><title>SPA</title>');
    expect(englishHtml).toContain('<h1>Welcome</h1>');
    expect(germanHtml).toContain('<html lang="de"><head><title>SPA</title>');
    expect(germanHtml).toContain('<h1>Willkommen</h1>');
    expect(germanHtml).toContain('mailto:access+&quot;x&quot;@acme.test');
    for (const res of [english, german])
      expect(res.headers.get('vary')).toBe('Accept-Encoding, Accept-Language, Cookie');
    expect(german.headers.get('etag')).not.toBe(english.headers.get('etag'));
    // Each language's ETag validates that language only.
    const revalidated = await get('/account/login?flow=1', {
      'accept-language': 'en',
      'if-none-match': german.headers.get('etag')!,
    });
    expect(revalidated.status).toBe(200);
    expect(await revalidated.text()).toContain('<h1>Welcome</h1>');
    const notModified = await get('/account/login?flow=1', {
      'accept-language': 'de',
      'if-none-match': german.headers.get('etag')!,
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('vary')).toBe('Accept-Encoding, Accept-Language, Cookie');
    // Each language in each encoding, precompressed (fetch decodes the body by its Content-Encoding).
    for (const encoding of ['br', 'gzip']) {
      const res = await get('/account/login?flow=1', {
        'accept-language': 'de',
        'accept-encoding': encoding,
      });
      expect(res.headers.get('content-encoding')).toBe(encoding);
      expect(await res.text()).toBe(germanHtml);
    }
    // A language we do not ship, none, or a malformed header: English.
    for (const header of ['fr-FR,fr;q=0.9', '', 'de;q=0, en;q=0.5', ';;;,q=de', 'x'.repeat(4000)]) {
      const res = await get('/account/login?flow=1', { 'accept-language': header });
      expect(await res.text(), header).toBe(englishHtml);
    }
    // The person's own setting, as the app keeps it in this browser, wins over the browser's languages;
    // a value that is not a shipped locale, or not the app's encoding, is no setting.
    const cookieCases: [string, string, string][] = [
      ['locale=%22de%22', 'en-US', germanHtml],
      ['other=1; locale=%22en%22', 'de-DE', englishHtml],
      ['locale=%22fr%22', 'de-DE', germanHtml],
      ['locale=de', 'en', englishHtml],
      ['locale=%E0%A4%A', 'de', germanHtml],
      ['locale=%7B%22__proto__%22%3A1%7D', 'en', englishHtml],
    ];
    for (const [cookie, language, html] of cookieCases) {
      const res = await get('/account/login?flow=1', { cookie, 'accept-language': language });
      expect(await res.text(), cookie).toBe(html);
    }
    // 50 readers at once, in two languages: each gets their own.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        get('/account/login?flow=1', { 'accept-language': i % 2 ? 'de-AT' : 'en-US' }).then((r) => r.text()),
      ),
    );
    answers.forEach((html, i) => expect(html).toBe(i % 2 ? germanHtml : englishHtml));
  });

  it('leaves every other route the plain page', async () => {
    const html = await (await get('/account/settings')).text();
    expect(html).toContain('<div id="root"></div>');
  });
});
