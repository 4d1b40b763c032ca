import { decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { createSecretBox } from '@acme/service-kit/secret-box';
import { loadKeyMaterial, rotateSigningKeyIfDue, signingAlgs } from '../src/keys.ts';
import { loadConfig } from '../src/config.ts';
import { migrations } from '../src/migrations.ts';
import { exchangeCode, introspect, signIn, startServer, type TestServer } from './harness.ts';

/**
 * The authorization server's private signing keys at rest (sealed with OAUTH2_KEYS_SECRET, a key
 * list like every secret setting) and its scheduled rotation (OAUTH2_KEY_ROTATE_EVERY).
 */
const OLD = 'old-oauth2-keys-secret-0123456789abcdef';
const NEW = 'new-oauth2-keys-secret-0123456789abcdef';
const algs = signingAlgs('ES256');

const databases: Database[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.close();
  for (const db of databases) await db.close();
});

async function freshDb(): Promise<Database> {
  const db = await createTestDb();
  databases.push(db);
  await migrate(db, 'oauth2', migrations);
  return db;
}

/** The key row as PostgreSQL holds it, as text. */
async function stored(db: Database): Promise<string> {
  const row = (
    await sql<{ row: string }>`select jwks::text || cookie_keys::text as row from oauth2_keys`.execute(
      db.kysely,
    )
  ).rows[0];
  return row!.row;
}

const privateParts = (keys: { d?: string }[]) => keys.map((k) => k.d!).filter(Boolean);

describe('the signing keys at rest', () => {
  it('are sealed with OAUTH2_KEYS_SECRET: no private key member is in the row', async () => {
    const db = await freshDb();
    const material = await loadKeyMaterial(db, { algs, box: createSecretBox([OLD]) });
    const text = await stored(db);
    expect(text).toMatch(/"sealed": "v2\./);
    expect(privateParts(material.jwks.keys)).toHaveLength(2);
    for (const d of privateParts(material.jwks.keys)) expect(text).not.toContain(d);
    for (const cookieKey of material.cookieKeys) expect(text).not.toContain(cookieKey);
  });

  it('a row in clear from before is read, then sealed by the first start with the key (same keys)', async () => {
    const db = await freshDb();
    const before = await loadKeyMaterial(db, { algs });
    expect(await stored(db)).toContain(privateParts(before.jwks.keys)[0]!);
    const after = await loadKeyMaterial(db, { algs, box: createSecretBox([OLD]) });
    expect(after.fingerprint).toBe(before.fingerprint);
    expect(after.cookieKeys).toEqual(before.cookieKeys);
    expect(await stored(db)).not.toContain(privateParts(before.jwks.keys)[0]!);
  });

  it('OAUTH2_KEYS_SECRET rotated in three steps: the row opens at each step and ends sealed under the new key', async () => {
    const db = await freshDb();
    const first = await loadKeyMaterial(db, { algs, box: createSecretBox([OLD]) });
    // 1. new key second: still sealed under the old one.
    expect((await loadKeyMaterial(db, { algs, box: createSecretBox([OLD, NEW]) })).fingerprint).toBe(
      first.fingerprint,
    );
    expect(
      createSecretBox([OLD, NEW]).isCurrent(JSON.parse((await stored(db)).split('}')[0]! + '}').sealed),
    ).toBe(true);
    // 2. new key first: the first read seals the row again under it.
    expect((await loadKeyMaterial(db, { algs, box: createSecretBox([NEW, OLD]) })).fingerprint).toBe(
      first.fingerprint,
    );
    // 3. old key dropped.
    const last = await loadKeyMaterial(db, { algs, box: createSecretBox([NEW]) });
    expect(last.fingerprint).toBe(first.fingerprint);
    expect(last.jwks.keys).toEqual(first.jwks.keys);
  });

  it('a row sealed under a key that was dropped from the list is refused, never replaced by new keys', async () => {
    const db = await freshDb();
    const first = await loadKeyMaterial(db, { algs, box: createSecretBox([OLD]) });
    await expect(loadKeyMaterial(db, { algs, box: createSecretBox([NEW]) })).rejects.toThrow(
      /unknown key id/,
    );
    await expect(loadKeyMaterial(db, { algs })).rejects.toThrow(/OAUTH2_KEYS_SECRET/);
    expect((await loadKeyMaterial(db, { algs, box: createSecretBox([OLD]) })).fingerprint).toBe(
      first.fingerprint,
    );
  });

  it('is required in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/OAUTH2_KEYS_SECRET is required/);
    expect(() => loadConfig({ NODE_ENV: 'production', OAUTH2_KEYS_SECRET: `${OLD},` })).toThrow(
      /OAUTH2_KEYS_SECRET/,
    );
    expect(loadConfig({ NODE_ENV: 'production', OAUTH2_KEYS_SECRET: `${NEW},${OLD}` }).keysSecrets).toEqual([
      NEW,
      OLD,
    ]);
  });

  it('a server with the key signs and verifies tokens as before', async () => {
    const server = await startServer({ env: { OAUTH2_KEYS_SECRET: OLD } });
    servers.push(server);
    databases.push(server.db);
    const { callback, verifier } = await signIn(server);
    const token = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    expect((await introspect(server, token.body.access_token as string)).body.active).toBe(true);
    expect(await stored(server.db)).toMatch(/"sealed"/);
  });
});

describe('scheduled key rotation (OAUTH2_KEY_ROTATE_EVERY)', () => {
  const HOUR = 3600;

  it('many instances asking at once when the period is over: exactly one rotation, then none until the next period', async () => {
    const db = await freshDb();
    const box = createSecretBox([OLD]);
    const start = new Date('2026-01-01T00:00:00Z');
    const first = await loadKeyMaterial(db, { algs, box, now: start, retentionSeconds: HOUR });
    const ask = (now: Date) =>
      Promise.all(
        Array.from({ length: 20 }, () =>
          rotateSigningKeyIfDue(db, { now, retentionSeconds: HOUR, algs, box, everySeconds: 24 * HOUR }),
        ),
      );
    expect((await ask(new Date(start.getTime() + 23 * HOUR * 1000))).filter(Boolean)).toHaveLength(0);
    const due = new Date(start.getTime() + 24 * HOUR * 1000);
    const rotated = (await ask(due)).filter(Boolean);
    expect(rotated).toHaveLength(1);
    const after = await loadKeyMaterial(db, { algs, box, now: due, retentionSeconds: HOUR });
    expect(after.signingKids).toEqual(rotated[0]!.kids);
    // The previous keys stay published (tokens they signed are still valid)…
    for (const kid of first.signingKids) expect(after.fingerprint).toContain(kid);
    // …until the longest token lifetime (plus a minute of skew) has passed.
    const later = await loadKeyMaterial(db, {
      algs,
      box,
      now: new Date(due.getTime() + (HOUR + 61) * 1000),
      retentionSeconds: HOUR,
    });
    for (const kid of first.signingKids) expect(later.fingerprint).not.toContain(kid);
    expect((await ask(new Date(due.getTime() + 23 * HOUR * 1000))).filter(Boolean)).toHaveLength(0);
    expect((await ask(new Date(due.getTime() + 24 * HOUR * 1000))).filter(Boolean)).toHaveLength(1);
  });

  it('running servers on one database rotate once when the period is over, and a refresh token made before still works', async () => {
    const db = await freshDb();
    const clock = new FakeClock(new Date('2026-01-01T00:00:00Z'));
    const env = { OAUTH2_KEYS_SECRET: OLD, OAUTH2_KEY_ROTATE_EVERY: '1d', OAUTH2_KEY_RELOAD_SECONDS: '1' };
    const a = await startServer({ db, clock, env });
    servers.push(a);
    const instances = [a];
    for (let i = 0; i < 3; i++) {
      const s = await startServer({ db, clock, env: { ...env, OAUTH2_PUBLIC_URL: a.issuer } });
      servers.push(s);
      instances.push(s);
    }
    const jwks = async (s: TestServer) =>
      (
        (await (await fetch(`${s.publicUrl}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
      ).keys.map((k) => k.kid);
    const before = await jwks(a);
    const { callback, verifier } = await signIn(a);
    const token = await exchangeCode(a, callback.searchParams.get('code')!, verifier);
    expect(token.status).toBe(200);
    clock.advance(24 * HOUR * 1000);
    // Each instance's periodic upkeep (every second here) asks; one rotates, all pick it up.
    await expect
      .poll(async () => (await Promise.all(instances.map(jwks))).map((k) => k.length), { timeout: 15_000 })
      .toEqual([4, 4, 4, 4]);
    const after = await jwks(a);
    expect(after.slice(2)).toEqual(before);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await jwks(a)).toEqual(after);
    const refreshed = await fetch(`${instances[2]!.publicUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: token.body.refresh_token as string,
        client_id: 'platform',
      }).toString(),
    });
    expect(refreshed.status).toBe(200);
    const access = ((await refreshed.json()) as { access_token: string }).access_token;
    expect(decodeProtectedHeader(access).kid).toBe(after[0]);
    for (const s of instances) expect((await introspect(s, access)).body.active).toBe(true);
  }, 60_000);
});
