import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServedApp } from './serve.ts';
import { resolveConfig, runtimeConfigScript, securityHeaders, serveApp } from './serve.ts';

let dist: string;
let app: ServedApp;

beforeAll(async () => {
  dist = await mkdtemp(join(tmpdir(), 'account-dist-'));
  await mkdir(join(dist, 'assets'));
  await mkdir(join(dist, '.vite'));
  await writeFile(join(dist, 'index.html'), '<!doctype html><title>SPA</title>');
  await writeFile(join(dist, 'assets', 'index-abc.js'), 'console.log(1)');
  await writeFile(join(dist, '.vite', 'manifest.json'), '{}');
  app = await serveApp({
    port: 0,
    application: 'magic',
    distDir: dist,
    config: { supportEmail: 'help@acme.test' },
  });
});

afterAll(async () => {
  await app.close();
  await rm(dist, { recursive: true, force: true });
});

describe('serveApp', () => {
  it('serves the SPA page for /, /research and unknown /account paths', async () => {
    for (const path of ['/', '/research', '/account/login?login_challenge=x', '/account/anything/deep']) {
      const res = await fetch(app.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(await res.text()).toContain('<title>SPA</title>');
    }
  });

  it('serves hashed assets immutably and 404s a missing asset', async () => {
    const res = await fetch(`${app.url}/account/assets/index-abc.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/javascript');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${app.url}/account/assets/missing.js`)).status).toBe(404);
  });

  it('serves the runtime configuration as a script, not cached', async () => {
    const res = await fetch(`${app.url}/account/runtime-config.js`);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const text = await res.text();
    expect(text).toContain('window.__ACCOUNT_CONFIG__');
    const json = JSON.parse(text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')));
    expect(json).toMatchObject({
      application: 'magic',
      appName: 'MAGIC',
      clientId: 'magic',
      supportEmail: 'help@acme.test',
    });
  });

  it('sets the security headers on every answer', async () => {
    const res = await fetch(`${app.url}/research`);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("base-uri 'none'");
    // MAGIC also talks to Entra (its development stand-in) for Microsoft sign-in.
    expect(csp).toContain(
      "connect-src 'self' http://localhost:4433 http://localhost:4444 http://localhost:4455 http://localhost:4466 http://localhost:4510",
    );
    expect(csp).toContain("form-action 'self' http://localhost:4433 http://localhost:4444");
    // Only our services: single sign-on leaves by a top-level navigation, so no provider is listed.
    expect(csp).toMatch(/form-action 'self' http:\/\/localhost:4433 http:\/\/localhost:4444$/);
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses dot files and path traversal (falls back to the SPA page)', async () => {
    const manifest = await fetch(`${app.url}/account/.vite/manifest.json`);
    expect(await manifest.text()).toContain('<title>SPA</title>');
    const traversal = await fetch(`${app.url}/account/%2e%2e/%2e%2e/etc/passwd`);
    expect(await traversal.text()).toContain('<title>SPA</title>');
  });

  it('answers 405 to other methods', async () => {
    expect((await fetch(`${app.url}/account/login`, { method: 'POST' })).status).toBe(405);
  });
});

describe('framing', () => {
  const cspOf = (headers: Record<string, string>) => headers['Content-Security-Policy'] ?? '';

  it('MAGIC runs inside Teams and Office: they (and its own origin) may frame it', async () => {
    const res = await fetch(`${app.url}/account/m365-login?isTeams=1`);
    const csp = res.headers.get('content-security-policy') ?? '';
    const ancestors = /frame-ancestors ([^;]+)/.exec(csp)?.[1]?.split(' ') ?? [];
    expect(ancestors).toEqual(
      expect.arrayContaining([
        "'self'",
        'https://teams.microsoft.com',
        'https://*.teams.microsoft.com',
        'https://*.office.com',
        'https://*.cloud.microsoft',
      ]),
    );
    expect(ancestors).not.toContain("'none'");
    expect(ancestors.some((a) => a === '*' || a.startsWith('http:'))).toBe(false);
    expect(res.headers.get('x-frame-options')).toBeNull();
  });

  it('a configured Teams host origin (the development host page) is added, as an origin', () => {
    const config = resolveConfig('magic', {
      m365: {
        ...resolveConfig('magic').m365!,
        extraFrameAncestors: ['http://localhost:4999/dev/teams-host'],
      },
    });
    expect(cspOf(securityHeaders(config))).toMatch(/frame-ancestors [^;]*http:\/\/localhost:4999(;| )/);
    expect(cspOf(securityHeaders(config))).not.toContain('/dev/teams-host');
  });

  it('Platform refuses framing', () => {
    const headers = securityHeaders(resolveConfig('platform'));
    expect(cspOf(headers)).toContain("frame-ancestors 'none'");
    expect(headers['X-Frame-Options']).toBe('DENY');
    expect(cspOf(headers)).not.toContain('teams.microsoft.com');
  });

  it('Platform refuses framing even when given a Microsoft configuration', () => {
    const headers = securityHeaders(resolveConfig('platform', { m365: resolveConfig('magic').m365 }));
    expect(cspOf(headers)).toContain("frame-ancestors 'none'");
  });
});

describe('configuration', () => {
  it('defaults per application and validates overrides', () => {
    expect(resolveConfig('platform')).toMatchObject({
      appName: 'Platform',
      clientId: 'platform',
      initialPage: { default: 'research', rules: [] },
    });
    expect(() => resolveConfig('platform', { identityUrl: 'not a url' })).toThrow(/identityUrl/);
  });

  it('escapes markup in the runtime script', () => {
    const script = runtimeConfigScript(resolveConfig('platform', { supportEmail: '</script><b>' }));
    expect(script).not.toContain('</script>');
  });

  it('lists distinct service origins once', () => {
    const csp = securityHeaders(resolveConfig('platform', { agentUrl: 'http://localhost:4455' }))[
      'Content-Security-Policy'
    ];
    expect(csp?.match(/localhost:4455/g)).toHaveLength(1);
  });
});
