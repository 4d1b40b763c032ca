import { createTestDb, migrate, type Database } from '@acme/db';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKeyMaterial } from '../src/keys.ts';
import { migrations } from '../src/migrations.ts';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  exchangeCode,
  introspect,
  location,
  navigate,
  refresh,
  signIn,
  startServer,
  type TestServer,
} from './harness.ts';

const dbs: Database[] = [];
afterAll(async () => {
  for (const db of dbs) await db.close();
});

async function jwksKids(server: TestServer): Promise<string[]> {
  const jwks = (await fetch(`${server.publicUrl}/.well-known/jwks.json`).then((r) => r.json())) as {
    keys: { kid: string; d?: string }[];
  };
  expect(jwks.keys.every((k) => k.d === undefined)).toBe(true);
  return jwks.keys.map((k) => k.kid);
}

/** The same URL served by another instance. */
function via(url: string, server: TestServer): string {
  const u = new URL(url);
  const target = new URL(server.publicUrl);
  u.host = target.host;
  return u.toString();
}

describe('state lives in PostgreSQL', () => {
  it('signing keys are generated once and persist across restarts on the same database', async () => {
    const db = await createTestDb();
    dbs.push(db);
    const first = await startServer({ db });
    const kids = await jwksKids(first);
    expect(kids).toHaveLength(2); // ES256 access tokens, RS256 ID tokens
    const { callback, verifier } = await signIn(first);
    const tokens = await exchangeCode(first, callback.searchParams.get('code')!, verifier);
    await first.close();

    const second = await startServer({ db, env: { OAUTH2_PUBLIC_URL: first.issuer } });
    try {
      expect(await jwksKids(second)).toEqual(kids);
      expect(decodeProtectedHeader(tokens.body.access_token as string).kid).toBe(kids[0]);
      const refreshed = await refresh(second, tokens.body.refresh_token as string);
      expect(refreshed.status).toBe(200);
      expect(decodeProtectedHeader(refreshed.body.access_token as string).kid).toBe(kids[0]);
    } finally {
      await second.close();
    }
  });

  it('concurrent first starts converge on one key set', async () => {
    const db = await createTestDb();
    dbs.push(db);
    await migrate(db, 'oauth2', migrations);
    const material = await Promise.all([loadKeyMaterial(db), loadKeyMaterial(db), loadKeyMaterial(db)]);
    const kids = material.map((m) => m.jwks.keys[0]?.kid);
    expect(new Set(kids).size).toBe(1);
    expect(new Set(material.map((m) => m.cookieKeys[0])).size).toBe(1);
  });

  it('two instances on one database serve each other’s challenges, codes and tokens', async () => {
    const db = await createTestDb();
    dbs.push(db);
    const a = await startServer({ db });
    const b = await startServer({ db, env: { OAUTH2_PUBLIC_URL: a.issuer } });
    try {
      const jar = new CookieJar();
      const { url, verifier } = authorizeUrl(a.issuer);
      const challenge = location(await navigate(jar, via(url, b))).searchParams.get('login_challenge')!;
      const accepted = await adminJson(
        a,
        'PUT',
        `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`,
        {
          subject: 'identity-2',
        },
      );
      const consentUrl = location(await navigate(jar, via(accepted.body.redirect_to as string, b)));
      const consentChallenge = consentUrl.searchParams.get('consent_challenge')!;
      expect(
        (
          await adminJson(
            b,
            'GET',
            `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
          )
        ).status,
      ).toBe(200);
      const consent = await adminJson(
        a,
        'PUT',
        `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
        { grant_scope: ['openid', 'offline_access'], session: { access_token: { n: 1 } } },
      );
      const callback = location(await navigate(jar, via(consent.body.redirect_to as string, a)));
      const code = callback.searchParams.get('code')!;
      expect(code).toMatch(/^ory_ac_/);

      const tokens = await exchangeCode(b, code, verifier);
      expect(tokens.status).toBe(200);
      expect(decodeJwt(tokens.body.access_token as string)).toMatchObject({
        sub: 'identity-2',
        ext: { n: 1 },
      });
      expect((await introspect(a, tokens.body.access_token as string)).body.active).toBe(true);
      const refreshed = await refresh(a, tokens.body.refresh_token as string);
      expect(refreshed.status).toBe(200);
      expect((await introspect(b, refreshed.body.refresh_token as string)).body.active).toBe(true);
      // Replaying the code on the other instance is detected too.
      expect((await exchangeCode(a, code, verifier)).body.error).toBe('invalid_grant');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a database outage answers server_error without internals, on both ports', async () => {
    const db = await createTestDb();
    const server = await startServer({ db });
    try {
      const { callback, verifier } = await signIn(server);
      await db.close();
      const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'server_error', error_description: expect.any(String) });
      expect(JSON.stringify(res.body)).not.toMatch(/pglite|pool|sql|stack|at /i);
      const admin = await adminJson(server, 'GET', '/admin/oauth2/auth/requests/login?login_challenge=x');
      expect(admin.status).toBe(500);
      expect(admin.body).toEqual({
        error: 'server_error',
        error_description: 'The server encountered an unexpected error.',
      });
    } finally {
      await server.close();
    }
  });
});
