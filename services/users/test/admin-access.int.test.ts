import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { runCli } from '../src/cli-commands.ts';
import { startIdentityUnderTest, type IdentityUnderTest } from './identity-stack.ts';
import { http, startTestService } from './harness.ts';
import type { TestUsersService } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

const USERS_KEY = 'users-admin-key-for-tests-0123456789abcdef';
const IDENTITY_KEY = 'identity-admin-key-for-tests-0123456789abc';

function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = request(url, { method: 'GET', headers }, (res) => {
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

describe('user service admin API access', () => {
  let identity: IdentityUnderTest;
  let svc: TestUsersService;
  beforeAll(async () => {
    identity = await startIdentityUnderTest({ adminKey: IDENTITY_KEY });
    svc = await startTestService({
      env: {
        IDENTITY_ADMIN_URL: identity.adminUrl,
        IDENTITY_PUBLIC_URL: identity.publicUrl,
        USERS_ADMIN_KEY: USERS_KEY,
        IDENTITY_ADMIN_KEY: IDENTITY_KEY,
      },
    });
  });
  afterAll(async () => {
    await svc.close();
    await identity.close();
  });

  it('admin API without the configured bearer key is refused', async () => {
    const none = await http(`${svc.adminUrl}/admin/organisations`);
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ errorCode: 'UNAUTHENTICATED' });
    const ok = await http(`${svc.adminUrl}/admin/organisations`, {
      headers: { authorization: `Bearer ${USERS_KEY}` },
    });
    expect(ok.status).toBe(200);
  });

  it('DNS rebinding: an admin request naming a foreign Host is refused', async () => {
    const res = await rawGet(`${svc.adminUrl}/admin/organisations`, {
      host: 'rebind.attacker.example',
      authorization: `Bearer ${USERS_KEY}`,
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ errorCode: 'FORBIDDEN' });
  });

  it('the CLI and the identity client send the configured keys', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    expect(await runCli(['org:list'], { env: { USERS_ADMIN_URL: svc.adminUrl }, ...io })).toBe(1);
    expect(
      await runCli(['org:list'], {
        env: { USERS_ADMIN_URL: svc.adminUrl, USERS_ADMIN_KEY: USERS_KEY },
        ...io,
      }),
    ).toBe(0);
    // A key list being rotated: the CLI sends the first entry; from a file too (USERS_ADMIN_KEY_FILE).
    const other = 'another-admin-key-that-is-long-enough-0000';
    const run = (env: Record<string, string>) =>
      runCli(['org:list'], { env: { USERS_ADMIN_URL: svc.adminUrl, ...env }, ...io });
    expect(await run({ USERS_ADMIN_KEY: `${USERS_KEY},${other}` })).toBe(0);
    expect(await run({ USERS_ADMIN_KEY: `${other},${USERS_KEY}` })).toBe(1);
    const file = join(mkdtempSync(join(tmpdir(), 'cli-key-')), 'key');
    writeFileSync(file, `${USERS_KEY}\n`);
    expect(await run({ USERS_ADMIN_KEY_FILE: file })).toBe(0);
    expect(await run({ USERS_ADMIN_KEY: `${USERS_KEY},` })).toBe(2);
    expect(err.join('')).toContain('USERS_ADMIN_KEY');
    expect(err.join('')).not.toContain(USERS_KEY);
    const org = await http(`${svc.adminUrl}/admin/organisations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${USERS_KEY}` },
      json: { name: 'Keyed', domains: ['keyed.test'], products: ['Platform'] },
    });
    expect(org.status).toBe(201);
    const user = await http(`${svc.adminUrl}/admin/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${USERS_KEY}` },
      json: {
        organisationId: (org.body as any).id,
        email: 'k@keyed.test',
        firstName: 'K',
        lastName: 'Ey',
        role: 'member',
        password: 'a long enough passphrase 42',
      },
    });
    expect(user.status).toBe(201);
    const calls = identity.requests.filter((r) => r.path.startsWith('/admin/'));
    expect(calls.length).toBeGreaterThan(0);
    for (const c of calls) expect(c.headers.authorization).toBe(`Bearer ${IDENTITY_KEY}`);
  });

  it('the public bind setting no longer moves the admin listener', () => {
    const config = loadConfig({ USERS_PUBLIC_HOST: '0.0.0.0' });
    expect(config.host).toBe('0.0.0.0');
    expect(config.admin.host).toBe('127.0.0.1');
    expect(() => loadConfig({ USERS_ADMIN_HOST: '0.0.0.0' })).toThrow(/USERS_ADMIN_KEY/);
  });

  it('account:unlock asks the identity admin API to end a lockout, with its key', async () => {
    identity.requests.length = 0;
    const out: string[] = [];
    const code = await runCli(['account:unlock', '--email', 'Locked@Example.com'], {
      env: { IDENTITY_ADMIN_URL: identity.adminUrl, IDENTITY_ADMIN_KEY: IDENTITY_KEY },
      out: (t) => out.push(t),
      err: () => undefined,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join(''))).toEqual({ ok: true });
    expect(identity.requests).toHaveLength(1);
    expect(identity.requests[0]).toMatchObject({
      method: 'POST',
      path: '/admin/lockouts/reset',
      body: { identifier: 'Locked@Example.com' },
    });
    expect(identity.requests[0]!.headers.authorization).toBe(`Bearer ${IDENTITY_KEY}`);
    expect(await runCli(['account:unlock'], { env: {}, out: () => undefined, err: () => undefined })).toBe(2);
  });
});
