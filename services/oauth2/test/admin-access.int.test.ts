import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { useTestServer } from './harness.ts';

const KEY = 'oauth2-admin-key-for-tests-0123456789abcd';

function get(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: Record<string, unknown> }>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('authorization server admin API access', () => {
  const server = useTestServer({ env: { OAUTH2_ADMIN_KEY: KEY } });
  const path = '/admin/oauth2/auth/requests/login?login_challenge=unknown-challenge';

  it('admin API without the configured bearer key is refused', async () => {
    const host = new URL(server.admin).host;
    const none = await get(`${server.admin}${path}`, { host });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('request_unauthorized');
    const keyed = await get(`${server.admin}${path}`, { host, authorization: `Bearer ${KEY}` });
    expect(keyed.status).toBe(404);
  });

  it('DNS rebinding: an admin request naming a foreign Host is refused', async () => {
    const res = await get(`${server.admin}${path}`, { host: 'evil.example', authorization: `Bearer ${KEY}` });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('request_forbidden');
  });

  it('binds the admin API to loopback by default and refuses a wider bind without a key', () => {
    expect(loadConfig({}).admin.host).toBe('127.0.0.1');
    expect(() => loadConfig({ OAUTH2_ADMIN_HOST: '0.0.0.0' })).toThrow(/OAUTH2_ADMIN_KEY/);
  });
});
