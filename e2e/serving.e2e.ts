import { describe, expect, it } from 'vitest';
import { systemUrls } from './browser.ts';

// How the app is served: what every browser gets before any script runs.
describe('serving the account app', () => {
  const urls = systemUrls();

  it('serves a production build (no React development runtime)', async () => {
    const html = await (await fetch(`${urls.platform}/account/login`)).text();
    const entry = /<script type="module"[^>]*src="([^"]+)"/.exec(html)?.[1];
    expect(entry).toMatch(/^\/account\/assets\/.+\.js$/);
    const js = await (await fetch(`${urls.platform}${entry}`)).text();
    expect(js).not.toContain('jsxDEV');
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
});
