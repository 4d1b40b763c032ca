import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start as startOAuth2 } from '@acme/oauth2';
import { runCli } from '../src/cli-commands.ts';

/** `npm run admin -- client:*` against the real authorization server's admin client API. */
describe('admin CLI client:create|list|show|update|delete|rotate-secret', () => {
  let db: Database;
  let close: () => Promise<void>;
  let env: Record<string, string>;
  const dir = mkdtempSync(join(tmpdir(), 'cli-clients-'));

  beforeAll(async () => {
    db = await createTestDb();
    const [pub, adm] = await Promise.all([freePort(), freePort()]);
    const oauth2 = await startOAuth2({
      db,
      logger: false,
      env: {
        OAUTH2_PUBLIC_URL: `http://localhost:${pub}`,
        OAUTH2_PUBLIC_PORT: String(pub),
        OAUTH2_ADMIN_PORT: String(adm),
        OAUTH2_MANAGEMENT_PORT: '0',
      },
    });
    close = oauth2.close;
    env = { OAUTH2_ADMIN_URL: oauth2.urls.admin! };
  });
  afterAll(async () => {
    await close();
    await db.close();
  });

  async function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  function file(name: string, value: unknown): string {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  }

  it('creates a web app from flags and a file, shows, lists, patches, rotates and deletes it', async () => {
    const created = await run([
      'client:create',
      '--file',
      file('client.json', { logo_uri: 'https://app.acme.test/logo.png', client_name: 'from file' }),
      '--name',
      'Acme App',
      '--grant-types',
      'authorization_code,refresh_token',
      '--redirect-uris',
      'https://app.acme.test/callback',
      '--scopes',
      'openid,offline_access',
      '--owner',
      'cli-test',
    ]);
    expect(created.code, created.err).toBe(0);
    const client = JSON.parse(created.out) as Record<string, unknown>;
    expect(client).toMatchObject({
      client_name: 'Acme App',
      logo_uri: 'https://app.acme.test/logo.png',
      redirect_uris: ['https://app.acme.test/callback'],
      scope: 'openid offline_access',
    });
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const id = client.client_id as string;

    const shown = await run(['client:show', '--id', id]);
    expect(shown.code).toBe(0);
    expect(shown.out).not.toContain(client.client_secret as string);

    const listed = await run(['client:list', '--owner', 'cli-test', '--page-size', '1']);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.out) as { client_id: string }[]).map((c) => c.client_id)).toEqual([id]);

    const patched = await run([
      'client:update',
      '--id',
      id,
      '--file',
      file('patch.json', [{ op: 'replace', path: '/client_name', value: 'Renamed' }]),
    ]);
    expect(patched.code, patched.err).toBe(0);
    expect(JSON.parse(patched.out)).toMatchObject({ client_name: 'Renamed' });

    const rotated = await run(['client:rotate-secret', '--id', id]);
    expect(rotated.code).toBe(0);
    const secret = (JSON.parse(rotated.out) as { client_secret: string }).client_secret;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secret).not.toBe(client.client_secret);

    expect((await run(['client:delete', '--id', id])).code).toBe(0);
    const gone = await run(['client:show', '--id', id]);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.err)).toMatchObject({ error: 'not_found' });
  });

  it('prints the next page token, and refuses a bad document with the server’s error', async () => {
    for (const name of ['one', 'two']) {
      await run(['client:create', '--name', name, '--grant-types', 'client_credentials', '--owner', 'pages']);
    }
    const first = await run(['client:list', '--owner', 'pages', '--page-size', '1']);
    const token = /--page-token (\S+)/.exec(first.err)?.[1];
    expect(token).toBeDefined();
    const second = await run(['client:list', '--owner', 'pages', '--page-size', '1', '--page-token', token!]);
    expect((JSON.parse(second.out) as { client_name: string }[]).map((c) => c.client_name)).toEqual(['two']);

    const bad = await run(['client:create', '--grant-types', 'password']);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.err)).toMatchObject({ error: 'invalid_client_metadata' });
    const usage = await run(['client:update', '--id', 'x']);
    expect(usage.code).toBe(2);
  });
});
