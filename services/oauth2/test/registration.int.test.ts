import { sql } from '@acme/db';
import { openApiErrors } from '@acme/test-kit/openapi';
import { describe, expect, it } from 'vitest';
import { adminJson, authorizeUrl, signIn, startServer, tokenRequest, useTestServer } from './harness.ts';

/**
 * Dynamic client registration (RFC 7591) and its management (RFC 7592) at /oauth2/register, the
 * authorization server metadata (RFC 8414), and tokens for another resource (RFC 8707).
 */

const MCP = 'http://localhost:4466/mcp';
const server = useTestServer({
  env: {
    OAUTH2_REGISTRATION: 'open',
    OAUTH2_REGISTRATION_PER_IP: '1000',
    OAUTH2_RESOURCE_SERVERS: MCP,
  },
});

const ASSISTANT = {
  client_name: 'Desk Assistant',
  redirect_uris: ['http://127.0.0.1:33418/callback'],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  software_id: 'ignored-as-rfc-7591-asks',
};

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.publicUrl}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

const register = (body: unknown, headers: Record<string, string> = {}) =>
  call('POST', '/oauth2/register', body, headers);
const bearer = (token: unknown) => ({ authorization: `Bearer ${String(token)}` });

async function clientCount(): Promise<number> {
  const rows = await sql<{ n: number }>`
    select count(*)::int as n from oauth2_models where model = 'Client'`.execute(server.db.kysely);
  return Number(rows.rows[0]!.n);
}

describe('dynamic client registration', () => {
  it('registers a public client and names the endpoint in RFC 8414 and OpenID metadata', async () => {
    const metadata = await call('GET', '/.well-known/oauth-authorization-server');
    expect(metadata.status).toBe(200);
    expect(metadata.body.issuer).toBe(server.issuer);
    expect(metadata.body.registration_endpoint).toBe(`${server.issuer}/oauth2/register`);
    expect(metadata.body.code_challenge_methods_supported).toContain('S256');
    const openid = await call('GET', '/.well-known/openid-configuration');
    expect(openid.body.registration_endpoint).toBe(`${server.issuer}/oauth2/register`);

    const created = await register(ASSISTANT);
    expect(created.status).toBe(201);
    expect(created.body.client_id).toEqual(expect.any(String));
    expect(created.body.client_name).toBe('Desk Assistant');
    expect(created.body.skip_consent).toBe(false);
    expect(created.body.registration_access_token).toEqual(expect.any(String));
    expect(created.body.registration_client_uri).toBe(
      `${server.issuer}/oauth2/register/${String(created.body.client_id)}`,
    );
    expect(created.body).not.toHaveProperty('client_secret');
    expect(created.body).not.toHaveProperty('software_id');
    const stored = await adminJson(server, 'GET', `/admin/clients/${String(created.body.client_id)}`);
    expect(stored.body.token_endpoint_auth_method).toBe('none');
  });

  it('gives a confidential client its secret once', async () => {
    const created = await register({ ...ASSISTANT, token_endpoint_auth_method: 'client_secret_basic' });
    expect(created.status).toBe(201);
    expect(created.body.client_secret).toEqual(expect.any(String));
    const read = await call(
      'GET',
      `/oauth2/register/${String(created.body.client_id)}`,
      undefined,
      bearer(created.body.registration_access_token),
    );
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('client_secret');
  });

  it('lets the registration access token read, update and delete its own client', async () => {
    const created = await register(ASSISTANT);
    const uri = `/oauth2/register/${String(created.body.client_id)}`;
    const auth = bearer(created.body.registration_access_token);
    const read = await call('GET', uri, undefined, auth);
    expect(read.status).toBe(200);
    expect(read.body.client_name).toBe('Desk Assistant');
    const updated = await call('PUT', uri, { ...ASSISTANT, client_name: 'Desk Assistant 2' }, auth);
    expect(updated.status).toBe(200);
    expect(updated.body.client_name).toBe('Desk Assistant 2');
    const deleted = await call('DELETE', uri, undefined, auth);
    expect(deleted.status).toBe(204);
    expect((await adminJson(server, 'GET', uri.replace('/oauth2/register', '/admin/clients'))).status).toBe(
      404,
    );
    expect((await call('GET', uri, undefined, auth)).status).toBe(401);
  });

  it('registration access token of one client cannot read, change or delete another client', async () => {
    const mine = await register(ASSISTANT);
    const theirs = await register({ ...ASSISTANT, client_name: 'Theirs' });
    const uri = `/oauth2/register/${String(theirs.body.client_id)}`;
    const auth = bearer(mine.body.registration_access_token);
    const before = await adminJson(server, 'GET', `/admin/clients/${String(theirs.body.client_id)}`);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { ...ASSISTANT, client_name: 'Hijacked' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, uri, body, auth);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('invalid_token');
      expect(res.headers.get('www-authenticate')).toContain('Bearer');
    }
    // Nor does it open anything else: the platform's own client, or the admin API's list.
    expect((await call('GET', '/oauth2/register/platform', undefined, auth)).status).toBe(401);
    expect((await call('GET', '/oauth2/register', undefined, auth)).status).toBe(405);
    const after = await adminJson(server, 'GET', `/admin/clients/${String(theirs.body.client_id)}`);
    expect(after.body).toEqual(before.body);
  });

  it('registration access token is no access token: the token endpoint and userinfo refuse it', async () => {
    const created = await register(ASSISTANT);
    const res = await fetch(`${server.publicUrl}/userinfo`, {
      headers: bearer(created.body.registration_access_token),
    });
    expect(res.status).toBe(401);
  });

  it('registered client cannot grant itself client_credentials or skip_consent', async () => {
    const before = await clientCount();
    const credentials = await register({ ...ASSISTANT, grant_types: ['client_credentials'] });
    expect(credentials.status).toBe(400);
    expect(credentials.body.error).toBe('invalid_client_metadata');
    const skip = await register({ ...ASSISTANT, skip_consent: true });
    expect(skip.status).toBe(400);
    expect(skip.body.error).toBe('invalid_client_metadata');
    const device = await register({
      ...ASSISTANT,
      grant_types: ['urn:ietf:params:oauth:grant-type:device_code'],
    });
    expect(device.body.error).toBe('invalid_client_metadata');
    // Nor through an update.
    const created = await register(ASSISTANT);
    const update = await call(
      'PUT',
      `/oauth2/register/${String(created.body.client_id)}`,
      { ...ASSISTANT, skip_consent: true },
      bearer(created.body.registration_access_token),
    );
    expect(update.body.error).toBe('invalid_client_metadata');
    expect(await clientCount()).toBe(before + 1);
  });

  it('registered client redirect URIs must be https or loopback, without a fragment', async () => {
    const before = await clientCount();
    for (const uri of ['http://assistant.example/callback', 'https://assistant.example/cb#x', 'not a uri']) {
      const res = await register({ ...ASSISTANT, redirect_uris: [uri] });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
      expect(res.body.error_description).toEqual(expect.any(String));
    }
    expect((await register({ ...ASSISTANT, redirect_uris: ['https://assistant.example/cb'] })).status).toBe(
      201,
    );
    expect(await clientCount()).toBe(before + 1);
  });

  it('answers bad documents with invalid_client_metadata, never a 500', async () => {
    const before = await clientCount();
    for (const body of ['{not json', '[]', '"text"', JSON.stringify({ ...ASSISTANT, redirect_uris: 'x' })]) {
      const res = await register(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
    }
    const proto = await register('{"__proto__":{"admin":true},"redirect_uris":["http://127.0.0.1/cb"]}');
    expect(proto.status).toBe(400);
    const huge = await register({ ...ASSISTANT, client_name: 'x'.repeat(40_000) });
    expect(huge.status).toBe(413);
    const form = await register('a=b', { 'content-type': 'text/plain' });
    expect(form.status).toBe(415);
    expect(await clientCount()).toBe(before);
  });

  it('threat: list elements that are not strings (an object with its own toString, an array, a number) crash the registration with a 500', async () => {
    const before = await clientCount();
    const elements = [
      '{"toString":1}',
      '[{"toString":1}]',
      '7',
      '{"__proto__":{"toString":1}}',
      '{"constructor":1}',
    ];
    // A prototype key is refused before registration reads the body (invalid_request, as on every route).
    const refusal = (element: string) =>
      /__proto__|constructor/.test(element) ? 'invalid_request' : 'invalid_client_metadata';
    for (const element of elements) {
      for (const field of ['audience', 'grant_types']) {
        const res = await register(`{"redirect_uris":["http://127.0.0.1/cb"],"${field}":[${element}]}`);
        expect(res.status, `${field}: [${element}]`).toBe(400);
        expect(res.body.error).toBe(refusal(element));
      }
    }
    const local = await startServer({
      env: { OAUTH2_REGISTRATION: 'loopback', OAUTH2_RESOURCE_SERVERS: MCP },
    });
    try {
      for (const element of elements) {
        for (const field of ['redirect_uris', 'post_logout_redirect_uris']) {
          const res = await fetch(`${local.publicUrl}/oauth2/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: `{"redirect_uris":["http://127.0.0.1/cb"],"${field}":[${element}]}`,
          });
          expect(res.status, `${field}: [${element}]`).toBe(400);
          expect(((await res.json()) as { error: string }).error).toBe(refusal(element));
        }
      }
    } finally {
      await local.close();
      await local.db.close();
    }
    expect(await clientCount()).toBe(before);
  });

  it('tokens asked for the MCP resource carry it as their only audience', async () => {
    const created = await register(ASSISTANT);
    const clientId = String(created.body.client_id);
    const redirectUri = ASSISTANT.redirect_uris[0]!;
    const authorize = {
      client_id: clientId,
      redirect_uri: redirectUri,
      resource: MCP,
      scope: 'openid offline_access',
    };
    const { callback, verifier } = await signIn(server, { authorize });
    const code = callback.searchParams.get('code')!;
    const tokens = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id: clientId,
      resource: MCP,
    });
    expect(tokens.status).toBe(200);
    const payload = JSON.parse(
      Buffer.from(String(tokens.body.access_token).split('.')[1]!, 'base64url').toString(),
    ) as { aud: unknown };
    expect(payload.aud).toEqual([MCP]);
    // An unknown resource is refused at the authorization endpoint.
    const { url } = authorizeUrl(server.issuer, { ...authorize, resource: 'https://elsewhere.example/' });
    const res = await fetch(url, { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('a token minted for the MCP server cannot call /userinfo', async () => {
    // A client the operator allowed both audiences (a registered one gets the MCP server's only).
    const { software_id: _ignored, ...document } = ASSISTANT;
    const created = await adminJson(server, 'POST', '/admin/clients', {
      ...document,
      audience: ['urn:acme:api', MCP],
    });
    expect(created.status).toBe(201);
    const clientId = String(created.body.client_id);
    const redirectUri = ASSISTANT.redirect_uris[0]!;
    const tokenFor = async (resource: string) => {
      const authorize = { client_id: clientId, redirect_uri: redirectUri, resource, scope: 'openid' };
      const { callback, verifier } = await signIn(server, { authorize });
      const tokens = await tokenRequest(server, {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: clientId,
        resource,
      });
      expect(tokens.status).toBe(200);
      return String(tokens.body.access_token);
    };
    const userinfo = async (token: string) =>
      fetch(`${server.publicUrl}/userinfo`, { headers: bearer(token) });
    // The same client and person, asking for the platform's APIs: userinfo answers.
    const platform = await userinfo(await tokenFor('urn:acme:api'));
    expect(platform.status).toBe(200);
    const mcp = await userinfo(await tokenFor(MCP));
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toContain('invalid_token');
  });
});

describe("Hydra's OpenAPI document: dynamic client registration", () => {
  const conforms = (path: string, method: string, res: { status: number; body: unknown }) =>
    expect(openApiErrors('hydra', path, method, res.status, res.body)).toEqual([]);

  it('answers /oauth2/register and /oauth2/register/{id} in the shapes Hydra documents', async () => {
    const created = await register(ASSISTANT);
    conforms('/oauth2/register', 'post', created);
    const invalid = await register({ ...ASSISTANT, grant_types: ['client_credentials'] });
    conforms('/oauth2/register', 'post', invalid);
    const uri = `/oauth2/register/${String(created.body.client_id)}`;
    const auth = bearer(created.body.registration_access_token);
    conforms('/oauth2/register/{id}', 'get', await call('GET', uri, undefined, auth));
    conforms('/oauth2/register/{id}', 'put', await call('PUT', uri, ASSISTANT, auth));
    conforms('/oauth2/register/{id}', 'get', await call('GET', uri, undefined, bearer('wrong')));
  });
});

describe('dynamic client registration limits', () => {
  it('limits registrations per client address (50 parallel requests)', async () => {
    const limited = await startServer({
      env: {
        OAUTH2_REGISTRATION: 'loopback',
        OAUTH2_REGISTRATION_PER_IP: '10',
        OAUTH2_RESOURCE_SERVERS: MCP,
      },
    });
    try {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${limited.publicUrl}/oauth2/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(ASSISTANT),
          }),
        ),
      );
      const statuses = answers.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(10);
      expect(statuses.filter((s) => s === 429)).toHaveLength(40);
      expect(answers.find((r) => r.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
      const rows = await sql<{ n: number }>`
        select count(*)::int as n from oauth2_models
        where model = 'Client' and not (payload->>'configured')::boolean`.execute(limited.db.kysely);
      expect(Number(rows.rows[0]!.n)).toBe(10);
    } finally {
      await limited.close();
      await limited.db.close();
    }
  });

  it('loopback mode registers local clients only', async () => {
    const local = await startServer({
      env: { OAUTH2_REGISTRATION: 'loopback', OAUTH2_RESOURCE_SERVERS: MCP },
    });
    try {
      const post = (body: unknown) =>
        fetch(`${local.publicUrl}/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const remote = await post({ ...ASSISTANT, redirect_uris: ['https://assistant.example/cb'] });
      expect(remote.status).toBe(400);
      expect(((await remote.json()) as { error: string }).error).toBe('invalid_redirect_uri');
      expect((await post(ASSISTANT)).status).toBe(201);
    } finally {
      await local.close();
      await local.db.close();
    }
  });

  it('registration is off by default and needs the initial access token when one is set', async () => {
    const off = await startServer();
    const guarded = await startServer({
      env: {
        OAUTH2_REGISTRATION: 'open',
        OAUTH2_REGISTRATION_INITIAL_ACCESS_TOKEN: 'i'.repeat(40),
        OAUTH2_RESOURCE_SERVERS: MCP,
      },
    });
    try {
      const post = (s: { publicUrl: string }, headers: Record<string, string> = {}) =>
        fetch(`${s.publicUrl}/oauth2/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(ASSISTANT),
        });
      expect((await post(off)).status).toBe(404);
      const meta = (await (
        await fetch(`${off.publicUrl}/.well-known/oauth-authorization-server`)
      ).json()) as Record<string, unknown>;
      expect(meta).not.toHaveProperty('registration_endpoint');
      expect((await post(guarded)).status).toBe(401);
      expect((await post(guarded, bearer('j'.repeat(40)))).status).toBe(401);
      expect((await post(guarded, bearer('i'.repeat(40)))).status).toBe(201);
    } finally {
      for (const s of [off, guarded]) {
        await s.close();
        await s.db.close();
      }
    }
  });
});
