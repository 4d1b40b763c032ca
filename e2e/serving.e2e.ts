import { describe, expect, it } from 'vitest';
import { systemUrls } from './browser.ts';

// How the app is served: what every browser gets before any script runs.

/** The modules the login page asks for, named in its inline script (server/deferred-start.ts). */
const modulesOf = (html: string) =>
  [...html.matchAll(/"(\/account\/assets\/[\w.-]+\.js)"/g)].map((m) => m[1]!);

describe('serving the account app', () => {
  const urls = systemUrls();

  it('serves a production build (no React development runtime)', async () => {
    const html = await (await fetch(`${urls.platform}/account/login`)).text();
    const entry = /\bentry="([^"]+)"/.exec(html)?.[1];
    expect(entry).toMatch(/^\/account\/assets\/.+\.js$/);
    const js = await (await fetch(`${urls.platform}${entry}`)).text();
    expect(js).not.toContain('jsxDEV');
  });

  // What `npm start` builds (vite.config.ts writes .br/.gz) and serves: the login route compressed.
  it("sends the login route's page and scripts brotli-compressed, revalidated by ETag", async () => {
    const headers = { 'accept-encoding': 'br, gzip' };
    const page = await fetch(`${urls.platform}/account/login`, { headers });
    expect(page.headers.get('content-encoding')).toBe('br');
    const html = await page.text();
    const scripts = modulesOf(html);
    expect(scripts.length).toBeGreaterThan(1);
    for (const src of scripts) {
      const res = await fetch(`${urls.platform}${src}`, { headers });
      expect(res.headers.get('content-encoding'), src).toBe('br');
      expect(res.headers.get('vary'), src).toMatch(/accept-encoding/i);
      expect(res.headers.get('cache-control'), src).toBe('public, max-age=31536000, immutable');
      const etag = res.headers.get('etag') ?? '';
      expect(etag, src).toMatch(/^"/);
      const again = await fetch(`${urls.platform}${src}`, { headers: { ...headers, 'if-none-match': etag } });
      expect(again.status, src).toBe(304);
    }
  });

  it.each(['/account/login', '/research', '/'])('sends the security headers on %s', async (path) => {
    const res = await fetch(`${urls.platform}${path}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  // npm start runs every service in one process; the cluster runs each in its own (first instance here).
  it("answers on each part's management port for that part only: its metrics, its readiness, 404 to the rest", async () => {
    for (const [part, url] of Object.entries(urls.management)) {
      expect((await fetch(`${url}/health/ready`)).status, part).toBe(200);
      const text = await (await fetch(`${url}/metrics`)).text();
      expect([...new Set(text.match(/service="[a-z0-9]+"/g))], part).toEqual([`service="${part}"`]);
      expect(text, part).toContain('# TYPE process_cpu_seconds_total ');
      expect((await fetch(`${url}/account/login`)).status, part).toBe(404);
    }
  });
});
