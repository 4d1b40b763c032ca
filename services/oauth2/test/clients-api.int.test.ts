import { sql } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import { openApiErrors } from '@acme/test-kit/openapi';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { ClientDocumentSchema } from '../src/clients/client-document.ts';
import { deviceAuthorization } from './device-harness.ts';
import {
  adminJson,
  authorizeUrl,
  CookieJar,
  location,
  navigate,
  signIn,
  tokenRequest,
  useTestServer,
  type TestServer,
} from './harness.ts';

/**
 * Hydra's admin client API, whole: every route, every field this server honours, on a real server
 * and database. Answers are checked against the client document's own schema (a read can be sent
 * back as it is) and Hydra's published OpenAPI document.
 */

const clock = new FakeClock();
const GRACE_SECONDS = 60;
const server = useTestServer({ clock, env: { OAUTH2_CLIENT_SECRET_GRACE_SECONDS: String(GRACE_SECONDS) } });

const WEB_APP = {
  client_name: 'Acme Reports',
  grant_types: ['authorization_code', 'refresh_token'],
  redirect_uris: ['https://reports.acme.test/callback'],
  post_logout_redirect_uris: ['https://reports.acme.test/signed-out'],
  scope: 'openid offline_access',
  audience: ['urn:acme:api'],
  token_endpoint_auth_method: 'client_secret_basic',
  logo_uri: 'https://reports.acme.test/logo.png',
  policy_uri: 'https://reports.acme.test/privacy',
  tos_uri: 'https://reports.acme.test/terms',
  client_uri: 'https://reports.acme.test',
  contacts: ['it@acme.test'],
  owner: 'org-1',
  skip_consent: false,
  metadata: { team: 'reports' },
  authorization_code_grant_access_token_lifespan: '5m0s',
  authorization_code_grant_id_token_lifespan: '10m',
  authorization_code_grant_refresh_token_lifespan: '48h',
  refresh_token_grant_access_token_lifespan: '2m',
};

type Answer = { status: number; body: Record<string, unknown> };

function conforms(path: string, method: string, res: Answer) {
  expect(openApiErrors('hydra', path, method, res.status, res.body)).toEqual([]);
  if (res.status < 300) expect(ClientDocumentSchema.safeParse(res.body).success).toBe(true);
}

async function create(body: Record<string, unknown>) {
  const res = await adminJson(server, 'POST', '/admin/clients', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { client_id: string; client_secret?: string } & Record<string, unknown>;
}

const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

async function storedClient(id: string) {
  return (
    await sql<{ payload: Record<string, unknown> }>`
      select payload from oauth2_models where model = 'Client' and id = ${id}`.execute(server.db.kysely)
  ).rows[0]?.payload;
}

/** Signs in through `client` and exchanges the code with its secret. */
async function codeTokens(
  s: TestServer,
  client: { client_id: string; client_secret: string },
  redirectUri: string,
) {
  const { callback, verifier } = await signIn(s, {
    authorize: { client_id: client.client_id, redirect_uri: redirectUri },
  });
  return tokenRequest(
    s,
    {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    },
    basic(client.client_id, client.client_secret),
  );
}

describe('POST, GET, PUT, PATCH and DELETE /admin/clients', () => {
  it('creates a web app with every supported field; the secret is answered once and stored hashed', async () => {
    const res = await adminJson(server, 'POST', '/admin/clients', WEB_APP);
    expect(res.status).toBe(201);
    conforms('/admin/clients', 'post', res);
    expect(res.body).toMatchObject({ ...WEB_APP, response_types: ['code'], access_token_strategy: 'jwt' });
    expect(res.body.client_id).toMatch(/^[0-9a-f-]{36}$/);
    const secret = res.body.client_secret as string;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await storedClient(res.body.client_id as string);
    expect(stored!.client_secret).toMatch(/^sha256:/);
    expect(JSON.stringify(stored)).not.toContain(secret);

    const read = await adminJson(server, 'GET', `/admin/clients/${res.body.client_id as string}`);
    expect(read.status).toBe(200);
    conforms('/admin/clients/{id}', 'get', read);
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body).toMatchObject(WEB_APP);
  });

  it('a confidential web app signs a person in with the authorization code grant, with its own token lifespans', async () => {
    const client = await create(WEB_APP);
    const tokens = await codeTokens(server, client as never, WEB_APP.redirect_uris[0]!);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    expect(tokens.body.expires_in).toBe(300);
    const jwks = createRemoteJWKSet(new URL(`${server.publicUrl}/.well-known/jwks.json`));
    const id = await jwtVerify(tokens.body.id_token as string, jwks, { audience: client.client_id });
    expect(id.payload.exp! - id.payload.iat!).toBe(600);
    const refreshed = await tokenRequest(
      server,
      { grant_type: 'refresh_token', refresh_token: tokens.body.refresh_token as string },
      basic(client.client_id, client.client_secret!),
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.expires_in).toBe(120);
    // Without its secret the code grant is refused.
    const noSecret = await codeTokens(
      server,
      { client_id: client.client_id, client_secret: 'x'.repeat(43) },
      WEB_APP.redirect_uris[0]!,
    );
    expect(noSecret.status).toBe(401);
    expect(noSecret.body.error).toBe('invalid_client');
  });

  it('client_secret_post authenticates a client created for it', async () => {
    const client = await create({ ...WEB_APP, token_endpoint_auth_method: 'client_secret_post' });
    const { callback, verifier } = await signIn(server, {
      authorize: { client_id: client.client_id, redirect_uri: WEB_APP.redirect_uris[0] },
    });
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: WEB_APP.redirect_uris[0]!,
      code_verifier: verifier,
      client_id: client.client_id,
      client_secret: client.client_secret!,
    });
    expect(tokens.status).toBe(200);
  });

  it('redirect URIs are matched exactly: another path, port, query or case is refused before any sign-in', async () => {
    const client = await create(WEB_APP);
    for (const redirect of [
      'https://reports.acme.test/callback/',
      'https://reports.acme.test:8443/callback',
      'https://reports.acme.test/callback?x=1',
      'https://REPORTS.acme.test/Callback',
      'https://reports.acme.test.evil.test/callback',
    ]) {
      const res = await navigate(
        new CookieJar(),
        authorizeUrl(server.issuer, { client_id: client.client_id, redirect_uri: redirect }).url,
      );
      expect(res.status, redirect).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
  });

  it('PUT replaces the client (the secret stays unless a new one is given); a read can be sent back as it is', async () => {
    const client = await create(WEB_APP);
    const read = await adminJson(server, 'GET', `/admin/clients/${client.client_id}`);
    const put = await adminJson(server, 'PUT', `/admin/clients/${client.client_id}`, {
      ...read.body,
      client_name: 'Acme Reports 2',
      redirect_uris: ['https://reports2.acme.test/callback'],
    });
    expect(put.status).toBe(200);
    conforms('/admin/clients/{id}', 'put', put);
    expect(put.body.client_secret).toBeUndefined();
    expect(put.body).toMatchObject({
      client_name: 'Acme Reports 2',
      redirect_uris: ['https://reports2.acme.test/callback'],
    });
    const tokens = await codeTokens(server, client as never, 'https://reports2.acme.test/callback');
    expect(tokens.status).toBe(200);
    // Omitted fields return to their defaults, as in Hydra.
    const bare = await adminJson(server, 'PUT', `/admin/clients/${client.client_id}`, {
      grant_types: ['client_credentials'],
    });
    expect(bare.status, JSON.stringify(bare.body)).toBe(200);
    expect(bare.body).toMatchObject({ client_name: '', redirect_uris: [], logo_uri: '', contacts: [] });
  });

  it('PATCH applies a JSON Patch (RFC 6902): add, replace, remove, test, copy and move', async () => {
    const client = await create(WEB_APP);
    const res = await fetch(`${server.admin}/admin/clients/${client.client_id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json-patch+json' },
      body: JSON.stringify([
        { op: 'test', path: '/client_name', value: 'Acme Reports' },
        { op: 'replace', path: '/client_name', value: 'Reports' },
        { op: 'add', path: '/redirect_uris/-', value: 'http://127.0.0.1:8080/cb' },
        { op: 'remove', path: '/contacts/0' },
        { op: 'copy', from: '/redirect_uris/0', path: '/post_logout_redirect_uris/0' },
        { op: 'add', path: '/metadata/old', value: 1 },
        { op: 'move', from: '/metadata/old', path: '/metadata/moved' },
      ]),
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    conforms('/admin/clients/{id}', 'patch', { status: res.status, body });
    expect(body).toMatchObject({
      client_name: 'Reports',
      redirect_uris: ['https://reports.acme.test/callback', 'http://127.0.0.1:8080/cb'],
      post_logout_redirect_uris: [
        'https://reports.acme.test/callback',
        'https://reports.acme.test/signed-out',
      ],
      contacts: [],
      metadata: { team: 'reports', moved: 1 },
    });
  });

  it('DELETE removes the client: 204, then 404 for every route', async () => {
    const client = await create(WEB_APP);
    const removed = await fetch(`${server.admin}/admin/clients/${client.client_id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    for (const [method, path] of [
      ['GET', ''],
      ['PUT', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/secrets/rotate'],
    ] as const) {
      const res = await adminJson(
        server,
        method,
        `/admin/clients/${client.client_id}${path}`,
        method === 'PATCH' ? [] : method === 'PUT' ? WEB_APP : undefined,
      );
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('not_found');
    }
  });

  it("PUT /admin/clients/{id}/lifespans sets only the lifespans (Hydra's setOAuth2ClientLifespans)", async () => {
    const client = await create({ client_name: 'cron', grant_types: ['client_credentials'] });
    const res = await adminJson(server, 'PUT', `/admin/clients/${client.client_id}/lifespans`, {
      client_credentials_grant_access_token_lifespan: '90s',
    });
    expect(res.status).toBe(200);
    conforms('/admin/clients/{id}/lifespans', 'put', res);
    expect(res.body).toMatchObject({
      client_name: 'cron',
      client_credentials_grant_access_token_lifespan: '90s',
    });
    const token = await tokenRequest(
      server,
      { grant_type: 'client_credentials' },
      basic(client.client_id, client.client_secret!),
    );
    expect(token.body.expires_in).toBe(90);
    const other = await adminJson(server, 'PUT', `/admin/clients/${client.client_id}/lifespans`, {
      client_name: 'x',
    });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_client_metadata');
  });

  it("GET /admin/clients pages with Hydra's page_size and page_token (Link rel=next), filtered by owner or client_name", async () => {
    const owner = `pager-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      ids.push(
        (await create({ client_name: `pager ${i}`, grant_types: ['client_credentials'], owner })).client_id,
      );
    }
    const first = await fetch(`${server.admin}/admin/clients?page_size=2&owner=${owner}`);
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as { client_id: string }[];
    expect(openApiErrors('hydra', '/admin/clients', 'get', 200, page1)).toEqual([]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await fetch(`${server.admin}${next!}`);
    const page2 = (await second.json()) as { client_id: string }[];
    // Oldest first; clients created in the same instant (this test's clock stands still) by id.
    expect([...page1, ...page2].map((c) => c.client_id)).toEqual([...ids].sort());
    expect(second.headers.get('link')).not.toContain('rel="next"');
    const byName = (await (
      await fetch(`${server.admin}/admin/clients?client_name=pager%201&owner=${owner}`)
    ).json()) as { client_id: string }[];
    expect(byName.map((c) => c.client_id)).toEqual([ids[1]]);
    for (const query of ['page_size=0', 'page_size=1001', 'page_size=x', 'page_token=not-a-token']) {
      const bad = await adminJson(server, 'GET', `/admin/clients?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toBe('invalid_request');
    }
  });

  it('the configured applications are ordinary clients, but are changed in the configuration only', async () => {
    const platform = await adminJson(server, 'GET', '/admin/clients/platform');
    expect(platform.body).toMatchObject({ token_endpoint_auth_method: 'none', skip_consent: true });
    for (const [method, path, body] of [
      ['PUT', '/admin/clients/platform', { grant_types: ['client_credentials'] }],
      ['PATCH', '/admin/clients/platform', [{ op: 'replace', path: '/client_name', value: 'x' }]],
      ['DELETE', '/admin/clients/platform', undefined],
    ] as const) {
      const res = await adminJson(server, method, path, body);
      expect(res.status, method).toBe(403);
      expect(res.body.error).toBe('request_forbidden');
    }
  });
});

describe('the device code grant', () => {
  it('a public client of the device grant created here gets a device code and polls for its token', async () => {
    const client = await create({
      client_name: 'Acme CLI',
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    expect(client.client_secret).toBeUndefined();
    const auth = await deviceAuthorization(server, { clientId: client.client_id });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    expect(auth.body.device_code).toMatch(/^ory_dc_/);
    const poll = await tokenRequest(server, {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: auth.body.device_code as string,
      client_id: client.client_id,
    });
    expect(poll.body.error).toBe('authorization_pending');
  });
});

describe('client authentication none requires PKCE', () => {
  it('a public client gets tokens with PKCE and no secret', async () => {
    const client = await create({ ...WEB_APP, token_endpoint_auth_method: 'none' });
    expect(client.client_secret).toBeUndefined();
    const { callback, verifier } = await signIn(server, {
      authorize: { client_id: client.client_id, redirect_uri: WEB_APP.redirect_uris[0] },
    });
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code')!,
      redirect_uri: WEB_APP.redirect_uris[0]!,
      code_verifier: verifier,
      client_id: client.client_id,
    });
    expect(tokens.status).toBe(200);
  });

  it('threat: a public client that omits PKCE is refused at the authorization endpoint', async () => {
    const client = await create({ ...WEB_APP, token_endpoint_auth_method: 'none' });
    const { url } = authorizeUrl(server.issuer, {
      client_id: client.client_id,
      redirect_uri: WEB_APP.redirect_uris[0],
      code_challenge: undefined,
      code_challenge_method: undefined,
    });
    const res = await navigate(new CookieJar(), url);
    const back = location(res);
    expect(back.origin + back.pathname).toBe(WEB_APP.redirect_uris[0]);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/i);
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('secret rotation', () => {
  it('POST /admin/clients/{id}/secrets/rotate: a new secret answered once; the old one works during the grace period', async () => {
    const client = await create({ client_name: 'rotating', grant_types: ['client_credentials'] });
    const rotated = await adminJson(server, 'POST', `/admin/clients/${client.client_id}/secrets/rotate`);
    expect(rotated.status).toBe(200);
    conforms('/admin/clients/{id}/secrets/rotate', 'post', rotated);
    const fresh = rotated.body.client_secret as string;
    expect(fresh).not.toBe(client.client_secret);
    for (const secret of [fresh, client.client_secret!]) {
      const token = await tokenRequest(
        server,
        { grant_type: 'client_credentials' },
        basic(client.client_id, secret),
      );
      expect(token.status).toBe(200);
    }
    expect(
      (await adminJson(server, 'GET', `/admin/clients/${client.client_id}`)).body.client_secret,
    ).toBeUndefined();
    // DELETE …/secrets/rotate ends the grace period at once.
    const ended = await adminJson(server, 'DELETE', `/admin/clients/${client.client_id}/secrets/rotate`);
    expect(ended.status).toBe(200);
    conforms('/admin/clients/{id}/secrets/rotate', 'delete', ended);
    const old = await tokenRequest(
      server,
      { grant_type: 'client_credentials' },
      basic(client.client_id, client.client_secret!),
    );
    expect(old.status).toBe(401);
  });

  it('PUT with a client_secret sets that secret (Hydra), keeping the previous one for the grace period', async () => {
    const client = await create({ client_name: 'put-rotating', grant_types: ['client_credentials'] });
    const chosen = 'c'.repeat(40);
    const put = await adminJson(server, 'PUT', `/admin/clients/${client.client_id}`, {
      client_name: 'put-rotating',
      grant_types: ['client_credentials'],
      client_secret: chosen,
    });
    expect(put.status).toBe(200);
    expect(put.body.client_secret).toBe(chosen);
    for (const secret of [chosen, client.client_secret!]) {
      expect(
        (await tokenRequest(server, { grant_type: 'client_credentials' }, basic(client.client_id, secret)))
          .status,
      ).toBe(200);
    }
  });

  it('threat: a rotated-out secret is refused once its grace period is over', async () => {
    const client = await create({ client_name: 'graced', grant_types: ['client_credentials'] });
    const rotated = await adminJson(server, 'POST', `/admin/clients/${client.client_id}/secrets/rotate`);
    const creds = basic(client.client_id, client.client_secret!);
    expect((await tokenRequest(server, { grant_type: 'client_credentials' }, creds)).status).toBe(200);
    clock.advance((GRACE_SECONDS + 1) * 1000);
    const old = await tokenRequest(server, { grant_type: 'client_credentials' }, creds);
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect(old.body.access_token).toBeUndefined();
    const fresh = basic(client.client_id, rotated.body.client_secret as string);
    expect((await tokenRequest(server, { grant_type: 'client_credentials' }, fresh)).status).toBe(200);
  });
});
