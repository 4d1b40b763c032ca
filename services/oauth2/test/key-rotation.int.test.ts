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

async function accessToken(server: TestServer): Promise<string> {
  const { callback, verifier } = await signIn(server);
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

async function rotate(server: TestServer) {
  const res = await fetch(`${server.admin}/admin/keys/rotate`, { method: 'POST' });
  expect(res.status).toBe(200);
  return (await res.json()) as { kid: string; jwks_kids: string[] };
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
  it('key rotation keeps the old key published until its tokens expire, then drops it', async () => {
    const before = await kids(a);
    expect(before).toHaveLength(1);
    const oldKid = before[0]!;
    const oldToken = await accessToken(a);
    expect(decodeProtectedHeader(oldToken).kid).toBe(oldKid);

    const rotated = await rotate(a);
    expect(rotated.kid).not.toBe(oldKid);
    expect(rotated.jwks_kids).toEqual([rotated.kid, oldKid]);
    expect(await kids(a)).toEqual([rotated.kid, oldKid]);

    // New tokens are signed with the new key; the old token still verifies and is active.
    const newToken = await accessToken(a);
    expect(decodeProtectedHeader(newToken).kid).toBe(rotated.kid);
    const set = createLocalJWKSet(await jwks(a));
    await expect(jwtVerify(oldToken, set)).resolves.toBeTruthy();
    await expect(jwtVerify(newToken, set)).resolves.toBeTruthy();
    expect((await introspect(a, oldToken)).body.active).toBe(true);

    // The other instance follows the rotation: signs with the new key, publishes both.
    expect(await eventually(async () => (await kids(b)).join() === [rotated.kid, oldKid].join())).toBe(true);
    const fromB = await accessToken(b);
    expect(decodeProtectedHeader(fromB).kid).toBe(rotated.kid);
    expect((await introspect(b, fromB)).body.active).toBe(true);

    // Just before the old key's last token could expire, it is still published…
    clock.advance((3600 + 30) * 1000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await kids(a)).toContain(oldKid);
    // …and once it has, every instance drops it.
    clock.advance(60 * 1000);
    expect(await eventually(async () => !(await kids(a)).includes(oldKid))).toBe(true);
    expect(await eventually(async () => !(await kids(b)).includes(oldKid))).toBe(true);
    expect(await kids(a)).toEqual([rotated.kid]);
  });

  it('a rotation drops keys whose retention is over from storage, and keeps the one it retires', async () => {
    const [before] = await kids(a);
    const first = await rotate(a);
    expect(first.jwks_kids).toEqual([first.kid, before]);
    clock.advance((3600 + 61) * 1000);
    const second = await rotate(a);
    // `before` retired over an hour ago: gone. `first` signed until just now: kept.
    expect(second.jwks_kids).toEqual([second.kid, first.kid]);
  });
});
