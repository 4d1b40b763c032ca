import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, introspect, signIn, startServer, type TestServer } from './harness.ts';

/**
 * Issue 31, item 12: deprovisioning revokes a person's grants (Hydra's consent sessions), and the
 * access tokens already issued must stop at once, not at their expiry: a JWT access token counts
 * only while its index row and its grant are in the database, which `/userinfo` and introspection
 * read on every request. Two instances on one database behind one issuer, as behind a load
 * balancer: a revocation on one holds on the other at once (no per-instance cache).
 */
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startServer();
  b = await startServer({ db: a.db, env: { OAUTH2_PUBLIC_URL: a.issuer } });
});
afterAll(async () => {
  await b.close();
  await a.close();
  await a.db.close();
});

const userinfo = async (server: TestServer, token: string) =>
  (await fetch(`${server.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('a grant revoked on one instance', () => {
  it('after deprovisioning /userinfo and introspection refuse an already issued access token, on every instance', async () => {
    const subject = 'c0ffee00-0000-4000-8000-000000000031';
    const { callback, verifier } = await signIn(a, { subject });
    const tokens = await exchangeCode(a, callback.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    const access = tokens.body.access_token as string;
    for (const server of [a, b]) {
      expect(await userinfo(server, access)).toBe(200);
      expect((await introspect(server, access)).body.active).toBe(true);
    }

    const revoked = await fetch(
      `${a.admin}/admin/oauth2/auth/sessions/consent?subject=${encodeURIComponent(subject)}&all=true`,
      { method: 'DELETE' },
    );
    expect(revoked.status).toBe(204);

    for (const server of [b, a]) {
      expect(await userinfo(server, access)).toBe(401);
      expect((await introspect(server, access)).body).toEqual({ active: false });
      expect((await introspect(server, tokens.body.refresh_token as string)).body).toEqual({ active: false });
    }
  });
});
