import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeCode, introspect, signIn, startServer, type TestServer } from './harness.ts';

/**
 * Two instances of the authorization server on one database behind one issuer, as behind a load
 * balancer. Right after a rotation on one, the other has not re-read the keys yet (here it would
 * not for an hour): a token signed with the new key must still be accepted there, since the next
 * request of the same client may go to either instance.
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

async function accessToken(server: TestServer): Promise<string> {
  const { callback, verifier } = await signIn(server);
  const res = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

const kids = async (server: TestServer) =>
  (
    (await fetch(`${server.publicUrl}/.well-known/jwks.json`).then((r) => r.json())) as {
      keys: { kid: string }[];
    }
  ).keys.map((k) => k.kid);

describe('a rotation on one instance, a token checked on the other', () => {
  it('the other instance reads the new key when a token names it, and publishes it from then on', async () => {
    const before = await kids(b);
    const rotated = await fetch(`${a.admin}/admin/keys/rotate`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const token = await accessToken(a);
    const kid = decodeProtectedHeader(token).kid!;
    expect(before).not.toContain(kid);
    // b has not re-read the keys on its own yet.
    expect(await kids(b)).toEqual(before);

    const checked = await introspect(b, token);
    expect(checked.status).toBe(200);
    expect(checked.body.active).toBe(true);
    expect(await kids(b)).toContain(kid);
  });

  it('a token naming a key that no instance has stays inactive', async () => {
    const token = await accessToken(a);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const forged = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>;
    forged.kid = 'no-such-key';
    const renamed = `${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${payload}.${signature}`;
    const checked = await introspect(b, renamed);
    expect(checked.status).toBe(200);
    expect(checked.body.active).toBe(false);
    // The real token is still fine.
    expect((await introspect(b, token)).body.active).toBe(true);
  });
});
