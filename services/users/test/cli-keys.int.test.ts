import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start as startOAuth2 } from '@acme/oauth2';
import { runCli } from '../src/cli-commands.ts';

/** `npm run admin -- keys:rotate` / `keys:revoke` against the real authorization server's admin API. */
describe('admin CLI keys:rotate and keys:revoke', () => {
  let db: Database;
  let close: () => Promise<void>;
  const urls: Record<string, string> = {};

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
    urls.public = `http://localhost:${pub}`;
    urls.admin = oauth2.urls.admin!;
  });
  afterAll(async () => {
    await close();
    await db.close();
  });

  async function run(argv: string[], env: Record<string, string>) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { env, out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('rotates the signing key: the JWKS then lists the new key first and keeps the old one', async () => {
    const kids = async () =>
      (
        (await fetch(`${urls.public}/.well-known/jwks.json`).then((r) => r.json())) as {
          keys: { kid: string }[];
        }
      ).keys.map((k) => k.kid);
    const before = await kids();
    const result = await run(['keys:rotate'], { OAUTH2_ADMIN_URL: urls.admin! });
    expect(result.code).toBe(0);
    // One new key per algorithm (ES256 access tokens, RS256 ID tokens), first; the old ones kept.
    const printed = JSON.parse(result.out) as { kid: string; kids: string[]; jwks_kids: string[] };
    expect(printed.kids).toHaveLength(2);
    expect(printed.kids[0]).toBe(printed.kid);
    expect(before).not.toContain(printed.kid);
    expect(await kids()).toEqual([...printed.kids, ...before]);
  });

  it('keys:revoke --kid removes a retired key from the JWKS at once; the current key is refused', async () => {
    const kids = async () =>
      (
        (await fetch(`${urls.public}/.well-known/jwks.json`).then((r) => r.json())) as {
          keys: { kid: string }[];
        }
      ).keys.map((k) => k.kid);
    const [current, currentIdTokenKey, retired, retiredIdTokenKey] = await kids();
    expect(retired).toBeDefined();
    const refused = await run(['keys:revoke', '--kid', current!], { OAUTH2_ADMIN_URL: urls.admin! });
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('keys:rotate');
    const result = await run(['keys:revoke', '--kid', retired!], { OAUTH2_ADMIN_URL: urls.admin! });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toEqual({
      kid: retired,
      jwks_kids: [current, currentIdTokenKey, retiredIdTokenKey],
    });
    expect(await kids()).toEqual([current, currentIdTokenKey, retiredIdTokenKey]);
    const usage = await run(['keys:revoke'], { OAUTH2_ADMIN_URL: urls.admin! });
    expect(usage.code).toBe(2);
  });

  it('reports an unreachable authorization server with exit code 1', async () => {
    const port = await freePort();
    const result = await run(['keys:rotate'], { OAUTH2_ADMIN_URL: `http://localhost:${port}` });
    expect(result.code).toBe(1);
    expect(result.err).toContain('UNREACHABLE');
  });
});
