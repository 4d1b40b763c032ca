import { FakeClock } from '@acme/db/clock';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, introspect, signIn, startServer, type TestServer } from './harness.ts';

/**
 * Signing-key rotation: a new key signs from the rotation on; the old key stays in the JWKS until
 * the last JWT it signed has expired (the longest JWT lifetime, here the 3600 s ID token, plus a
 * minute of skew), then leaves it. Every instance on the database follows.
 */
const clock = new FakeClock();
const env = { OAUTH2_KEY_RELOAD_SECONDS: '1' };
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startServer({ clock, env });
  b = await startServer({ db: a.db, clock, env });
});
afterAll(async () => {
  await b.close();
  await a.close();
  await a.db.close();
});

async function jwks(server: TestServer): Promise<JSONWebKeySet> {
  return (await fetch(`${server.publicUrl}/.well-known/jwks.json`).then((r) => r.json())) as JSONWebKeySet;
}
const kids = async (server: TestServer) => (await jwks(server)).keys.map((k) => k.kid);

/** A fresh access token and ID token from `server`. */
async function tokens(server: TestServer): Promise<{ access: string; id: string }> {
  const { callback, verifier } = await signIn(server);
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return { access: res.body.access_token as string, id: res.body.id_token as string };
}

async function rotate(server: TestServer) {
  const res = await fetch(`${server.admin}/admin/keys/rotate`, { method: 'POST' });
  expect(res.status).toBe(200);
  return (await res.json()) as { kid: string; kids: string[]; jwks_kids: string[] };
}

/** Polls (bounded) until the condition holds; other instances re-read keys every second here. */
async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 40; i += 1) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

describe('signing key rotation', () => {
  it('key rotation with two algorithms: each keeps its old key published until its tokens expire, then drops it', async () => {
    // One current key per algorithm: ES256 signs access tokens, RS256 the ID tokens.
    const before = await kids(a);
    expect(before).toHaveLength(2);
    const [oldAccessKid, oldIdKid] = before;
    const old = await tokens(a);
    expect(decodeProtectedHeader(old.access)).toMatchObject({ kid: oldAccessKid, alg: 'ES256' });
    expect(decodeProtectedHeader(old.id)).toMatchObject({ kid: oldIdKid, alg: 'RS256' });

    const rotated = await rotate(a);
    expect(rotated.kids).toHaveLength(2);
    expect(rotated.kid).toBe(rotated.kids[0]);
    expect(rotated.jwks_kids).toEqual([...rotated.kids, ...before]);
    expect(await kids(a)).toEqual([...rotated.kids, ...before]);

    // New tokens are signed with the new key of their algorithm; the old ones still verify.
    const fresh = await tokens(a);
    expect(decodeProtectedHeader(fresh.access)).toMatchObject({ kid: rotated.kids[0], alg: 'ES256' });
    expect(decodeProtectedHeader(fresh.id)).toMatchObject({ kid: rotated.kids[1], alg: 'RS256' });
    const set = createLocalJWKSet(await jwks(a));
    for (const jwt of [old.access, old.id, fresh.access, fresh.id])
      await expect(jwtVerify(jwt, set)).resolves.toBeTruthy();
    expect((await introspect(a, old.access)).body.active).toBe(true);

    // The other instance follows the rotation: signs with the new keys, publishes all four.
    expect(await eventually(async () => (await kids(b)).join() === [...rotated.kids, ...before].join())).toBe(
      true,
    );
    const fromB = await tokens(b);
    expect(decodeProtectedHeader(fromB.access).kid).toBe(rotated.kids[0]);
    expect(decodeProtectedHeader(fromB.id).kid).toBe(rotated.kids[1]);
    expect((await introspect(b, fromB.access)).body.active).toBe(true);

    // Just before the old keys' last token could expire, they are still published…
    clock.advance((3600 + 30) * 1000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await kids(a)).toEqual(expect.arrayContaining(before));
    // …and once it has, every instance drops both.
    clock.advance(60 * 1000);
    expect(await eventually(async () => (await kids(a)).join() === rotated.kids.join())).toBe(true);
    expect(await eventually(async () => (await kids(b)).join() === rotated.kids.join())).toBe(true);
  });

  it('a rotation drops keys whose retention is over from storage, and keeps the ones it retires', async () => {
    const before = await kids(a);
    const first = await rotate(a);
    expect(first.jwks_kids).toEqual([...first.kids, ...before]);
    clock.advance((3600 + 61) * 1000);
    const second = await rotate(a);
    // `before` retired over an hour ago: gone. `first` signed until just now: kept.
    expect(second.jwks_kids).toEqual([...second.kids, ...first.kids]);
  });
});
