import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  introspect,
  navigate,
  signIn,
  startServer,
  tokenRequest,
  type TestServer,
} from './harness.ts';

/**
 * Two instances of the authorization server on one database behind one issuer, as behind a load
 * balancer: a client created, changed, rotated or deleted through one instance's admin API holds on
 * the other at its next request, with no restart (no per-instance copy of any client).
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

const REDIRECT = 'https://reports.acme.test/callback';
const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});
const userinfo = async (server: TestServer, token: string) =>
  (await fetch(`${server.publicUrl}/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

async function createApp(on: TestServer) {
  const res = await adminJson(on, 'POST', '/admin/clients', {
    client_name: 'Acme Reports',
    grant_types: ['authorization_code', 'refresh_token'],
    redirect_uris: [REDIRECT],
  });
  expect(res.status).toBe(201);
  return { id: res.body.client_id as string, secret: res.body.client_secret as string };
}

/** Signs in (at the shared issuer, served by `a`) and exchanges the code at instance `via`. */
async function tokensVia(via: TestServer, client: { id: string; secret: string }) {
  const { callback, verifier } = await signIn(via, {
    authorize: { client_id: client.id, redirect_uri: REDIRECT },
  });
  return tokenRequest(
    via,
    {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    },
    basic(client.id, client.secret),
  );
}

describe('client changes on every instance at the next request', () => {
  it('a client created on one instance signs people in on the other; a redirect URI removed there is refused here', async () => {
    const client = await createApp(b);
    const tokens = await tokensVia(b, client);
    expect(tokens.status).toBe(200);

    const patched = await adminJson(a, 'PATCH', `/admin/clients/${client.id}`, [
      { op: 'replace', path: '/redirect_uris', value: ['https://reports.acme.test/new-callback'] },
    ]);
    expect(patched.status).toBe(200);
    const old = await navigate(
      new CookieJar(),
      authorizeUrl(b.issuer, { client_id: client.id, redirect_uri: REDIRECT }).url.replace(
        a.publicUrl,
        b.publicUrl,
      ),
    );
    expect(old.status).toBe(400);
    expect(((await old.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  it('a secret rotated on one instance is the secret on the other at once', async () => {
    const client = await createApp(b);
    const rotated = await adminJson(b, 'POST', `/admin/clients/${client.id}/secrets/rotate`);
    const fresh = rotated.body.client_secret as string;
    const tokens = await tokensVia(a, { id: client.id, secret: fresh });
    expect(tokens.status).toBe(200);
    await adminJson(b, 'DELETE', `/admin/clients/${client.id}/secrets/rotate`);
    const old = await tokensVia(a, client);
    expect(old.status).toBe(401);
  });

  it("threat: a deleted client's tokens stop working at once, on every instance", async () => {
    const client = await createApp(a);
    const tokens = await tokensVia(a, client);
    expect(tokens.status).toBe(200);
    const access = tokens.body.access_token as string;
    const refresh = tokens.body.refresh_token as string;
    for (const server of [a, b]) {
      expect(await userinfo(server, access)).toBe(200);
      expect((await introspect(server, access)).body.active).toBe(true);
    }

    const removed = await fetch(`${b.admin}/admin/clients/${client.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);

    for (const server of [a, b]) {
      expect(await userinfo(server, access)).toBe(401);
      expect((await introspect(server, access)).body).toEqual({ active: false });
      expect((await introspect(server, refresh)).body).toEqual({ active: false });
      const refreshed = await tokenRequest(
        server,
        { grant_type: 'refresh_token', refresh_token: refresh },
        basic(client.id, client.secret),
      );
      expect(refreshed.status).toBe(401);
      expect(refreshed.body.error).toBe('invalid_client');
      expect(refreshed.body.access_token).toBeUndefined();
    }
  });
});
