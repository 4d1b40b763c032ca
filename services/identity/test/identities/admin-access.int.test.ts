/* eslint-disable @typescript-eslint/no-explicit-any -- raw JSON bodies under test */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { start } from '../../src/index.ts';
import { startHarness, type Harness } from '../harness.ts';

const KEY = 'k'.repeat(20) + '-admin-key-for-tests-0123456789';

/** A raw HTTP call, so the test controls the Host header as a rebinding page would send it. */
function call(url: string, path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: Record<string, any> }>((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ IDENTITY_ADMIN_KEY: KEY });
});
afterAll(() => h.close());

describe('identity admin API access', () => {
  it('admin API without the configured bearer key is refused', async () => {
    const host = new URL(h.adminUrl).host;
    const none = await call(h.adminUrl, '/admin/identities', { host });
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 401 });
    const wrong = await call(h.adminUrl, '/admin/identities', { host, authorization: `Bearer ${KEY}x` });
    expect(wrong.status).toBe(401);
    const ok = await call(h.adminUrl, '/admin/identities', { host, authorization: `Bearer ${KEY}` });
    expect(ok.status).toBe(200);
    expect(Array.isArray(ok.body)).toBe(true);
    // Liveness needs no key (probes carry none) but still the right Host.
    expect((await call(h.adminUrl, '/health/alive', { host })).status).toBe(200);
  });

  it('DNS rebinding: an admin request naming a foreign Host is refused even with the key', async () => {
    const res = await call(h.adminUrl, '/admin/identities', {
      host: 'attacker.example:4434',
      authorization: `Bearer ${KEY}`,
    });
    expect(res.status).toBe(403);
    expect(res.body.error.reason).toMatch(/Host header/);
    expect((await call(h.adminUrl, '/health/alive', { host: 'attacker.example' })).status).toBe(403);
  });

  it('an admin API bound beyond loopback without a key refuses to start', async () => {
    expect(() => loadConfig({ IDENTITY_ADMIN_HOST: '0.0.0.0' })).toThrow(/IDENTITY_ADMIN_KEY/);
    expect(() => loadConfig({ IDENTITY_ADMIN_HOST: '0.0.0.0', IDENTITY_ADMIN_KEY: 'short' })).toThrow();
    expect(loadConfig({ IDENTITY_ADMIN_HOST: '0.0.0.0', IDENTITY_ADMIN_KEY: KEY }).admin.host).toBe(
      '0.0.0.0',
    );
    // start() parses the configuration before it touches the database or a port.
    await expect(
      start({ db: h.db, env: { IDENTITY_ADMIN_HOST: '10.1.2.3', LOG_LEVEL: 'silent' }, logger: false }),
    ).rejects.toThrow(/IDENTITY_ADMIN_KEY/);
  });

  it('the admin listener binds to loopback by default', () => {
    expect(loadConfig({}).admin).toMatchObject({ host: '127.0.0.1', keys: undefined });
  });
});
