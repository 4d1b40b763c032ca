import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminJson,
  exchangeCode,
  introspect,
  refresh,
  signIn,
  startServer,
  type TestServer,
} from './harness.ts';

/**
 * Emergency key revocation (`keys:revoke`, `POST /admin/keys/revoke`): a signing key that may have
 * leaked leaves the JWKS at once and the tokens it signed stop being accepted, on every instance.
 * Two instances on one database behind one issuer; b would not re-read the keys on its own for an
 * hour, so everything b does here follows from the revocation itself.
 */
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  const env = { OAUTH2_KEY_RELOAD_SECONDS: '3600' };
  a = await startServer({ env });
  b = await startServer({ db: a.db, env: { ...env, OAUTH2_PUBLIC_URL: a.issuer } });
});
afterAll(async () => {
  await b.close();
  await a.close();
  await a.db.close();
});

/** Signs in at a, redeems the code at `at`: the tokens `at` signed. */
async function tokens(at: TestServer): Promise<{ access: string; refresh: string }> {
  const { callback, verifier } = await signIn(a);
  const res = await exchangeCode(at, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

const kidOf = (jwt: string) => decodeProtectedHeader(jwt).kid!;
const published = async (server: TestServer) =>
  (
    (await fetch(`${server.publicUrl}/.well-known/jwks.json`).then((r) => r.json())) as {
      keys: { kid: string }[];
    }
  ).keys.map((k) => k.kid);
const userinfo = (server: TestServer, token: string) =>
  fetch(`${server.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${token}` } }).then(
    (r) => r.status,
  );
const revoke = (server: TestServer, kid: unknown) => adminJson(server, 'POST', '/admin/keys/revoke', { kid });
const rotate = (server: TestServer) => adminJson(server, 'POST', '/admin/keys/rotate', {});

describe('emergency signing-key revocation', () => {
  it('refuses a current signing key of either algorithm (rotate first), an unknown kid and a missing one', async () => {
    const current = await published(a);
    expect(current).toHaveLength(2); // ES256 (access tokens) and RS256 (ID tokens)
    for (const kid of current) {
      const refused = await revoke(a, kid);
      expect(refused.status).toBe(409);
      expect(refused.body).toEqual({
        error: 'key_in_use',
        error_description: expect.stringContaining('keys:rotate'),
      });
    }
    expect(await published(a)).toEqual(current);
    expect((await revoke(a, 'no-such-kid')).status).toBe(404);
    expect((await revoke(a, undefined)).body).toMatchObject({ error: 'invalid_request' });
  });

  it('leaked signing key: after revocation the tokens it signed are refused on every instance', async () => {
    // Tokens signed by the key that is about to leak, one by each instance.
    const fromA = await tokens(a);
    const fromB = await tokens(b);
    const leaked = kidOf(fromA.access);
    expect(kidOf(fromB.access)).toBe(leaked);
    expect((await introspect(b, fromA.access)).body.active).toBe(true);
    expect(await userinfo(b, fromA.access)).toBe(200);
    const [, idTokenKid] = await published(a);

    const rotated = await rotate(a);
    expect(rotated.status).toBe(200);
    const revoked = await revoke(a, leaked);
    expect(revoked.status).toBe(200);
    // The retired ID-token key (RS256) stays published: only the leaked one leaves.
    const remaining = [...(rotated.body.kids as string[]), idTokenKid];
    expect(revoked.body).toEqual({ kid: leaked, jwks_kids: remaining });
    expect(await published(a)).toEqual(remaining);

    // Refused at once on both instances: b still held the key in memory.
    for (const server of [b, a]) {
      for (const token of [fromA.access, fromB.access]) {
        expect((await introspect(server, token)).body.active).toBe(false);
        expect(await userinfo(server, token)).toBe(401);
      }
    }
  });

  it('leaked signing key: an instance that still signs with it re-reads the keys at its next verification', async () => {
    const held = await tokens(b);
    const leaked = kidOf(held.access);
    const rotated = await rotate(a);
    expect((await revoke(a, leaked)).status).toBe(200);

    // b has not re-read its keys: the first token it verifies makes it (and is refused).
    expect(await published(b)).toContain(leaked);
    expect((await introspect(b, held.access)).body.active).toBe(false);
    expect(await published(b)).not.toContain(leaked);
    expect(await published(b)).toEqual(await published(a));

    // The refresh token is not signed, so it stays valid: it gets tokens from the new key,
    // which both instances accept.
    const refreshed = await refresh(b, held.refresh);
    expect(refreshed.status).toBe(200);
    const access = refreshed.body.access_token as string;
    expect(kidOf(access)).toBe(rotated.body.kid);
    expect(kidOf(refreshed.body.id_token as string)).toBe((rotated.body.kids as string[])[1]);
    expect((await introspect(a, access)).body.active).toBe(true);
    expect((await introspect(b, access)).body.active).toBe(true);
    expect(await userinfo(b, access)).toBe(200);
  });
});
