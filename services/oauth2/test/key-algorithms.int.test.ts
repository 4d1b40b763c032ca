import { decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate } from '@acme/db';
import { loadKeyMaterial, signingAlgs } from '../src/keys.ts';
import { migrations } from '../src/migrations.ts';
import { exchangeCode, introspect, signIn, startServer, type TestServer } from './harness.ts';

/**
 * ADR 0017: JWT access tokens are signed ES256 (OAUTH2_ACCESS_TOKEN_ALG), ID tokens as the client
 * registered (RS256), so the key set holds a current key of each algorithm.
 */
const opened: TestServer[] = [];
afterAll(async () => {
  for (const server of opened.reverse()) await server.close();
  await opened[0]?.db.close();
});

async function tokens(server: TestServer): Promise<{ access: string; id: string }> {
  const { callback, verifier } = await signIn(server);
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return { access: res.body.access_token as string, id: res.body.id_token as string };
}

const published = async (server: TestServer) =>
  (
    (await fetch(`${server.publicUrl}/.well-known/jwks.json`).then((r) => r.json())) as {
      keys: { kid: string; alg: string }[];
    }
  ).keys;

describe('signing algorithms', () => {
  it('a key set from before (RS256 only) gets an ES256 key at start-up, and the tokens its RS256 key signed stay valid', async () => {
    // An instance configured as before: RS256 access tokens, one key.
    const legacy = await startServer({ env: { OAUTH2_ACCESS_TOKEN_ALG: 'RS256' } });
    opened.push(legacy);
    expect((await published(legacy)).map((k) => k.alg)).toEqual(['RS256']);
    const old = await tokens(legacy);
    expect(decodeProtectedHeader(old.access).alg).toBe('RS256');

    // The upgraded instance on the same database adds an ES256 key and signs access tokens with it.
    const upgraded = await startServer({ db: legacy.db, env: { OAUTH2_PUBLIC_URL: legacy.issuer } });
    opened.push(upgraded);
    const keys = await published(upgraded);
    expect(keys.map((k) => k.alg)).toEqual(['ES256', 'RS256']);
    const fresh = await tokens(upgraded);
    expect(decodeProtectedHeader(fresh.access)).toMatchObject({ alg: 'ES256', kid: keys[0]!.kid });
    expect(decodeProtectedHeader(fresh.id)).toMatchObject({ alg: 'RS256', kid: keys[1]!.kid });
    // Either instance accepts both.
    for (const server of [upgraded, legacy]) {
      expect((await introspect(server, old.access)).body.active).toBe(true);
      expect((await introspect(server, fresh.access)).body.active).toBe(true);
    }
  });

  it('instances starting together on an empty database store one current key per algorithm', async () => {
    const db = await createTestDb();
    try {
      await migrate(db, 'oauth2', migrations);
      const algs = signingAlgs('ES256');
      const loaded = await Promise.all(Array.from({ length: 6 }, () => loadKeyMaterial(db, { algs })));
      const kids = new Set(loaded.map((m) => m.fingerprint));
      expect(kids.size).toBe(1);
      expect(loaded[0]!.jwks.keys.map((k) => k.alg)).toEqual(['ES256', 'RS256']);
      expect(loaded[0]!.signingKids).toHaveLength(2);
    } finally {
      await db.close();
    }
  });
});
