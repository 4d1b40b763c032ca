import { sql } from '@acme/db';
import { describe, expect, it } from 'vitest';
import {
  adminJson,
  authorizeUrl,
  exchangeCode,
  signIn,
  tokenRequest,
  useTestServer,
  type TestServer,
} from './harness.ts';

/**
 * Hydra's client `audience` allow-list, enforced: a token's audience, named by RFC 8707's `resource`
 * or Hydra's `audience` parameter (else the platform's APIs), must be one the client was given, at
 * the authorization endpoint, the code exchange, each refresh and the client-credentials grant.
 * A refusal is `invalid_target`, with the same text for an unknown audience.
 */

const PLATFORM_API = 'urn:acme:api';
const MCP = 'http://localhost:4466/mcp';
const REPORTS = 'https://reports.acme.test/api';
const REDIRECT = 'http://127.0.0.1:33420/callback';

type Form = Record<string, string>;

const server = useTestServer({
  env: {
    OAUTH2_RESOURCE_SERVERS: `${MCP},${REPORTS}`,
    OAUTH2_REGISTRATION: 'open',
    OAUTH2_REGISTRATION_PER_IP: '1000',
  },
});

const audienceOf = (token: unknown) =>
  (
    JSON.parse(Buffer.from(String(token).split('.')[1]!, 'base64url').toString()) as {
      aud: unknown;
    }
  ).aud;

/** A public web client of the authorization code grant, with the allow-list given (or none). */
async function webClient(audience?: string[]) {
  const created = await adminJson(server, 'POST', '/admin/clients', {
    client_name: 'Reports viewer',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...(audience ? { audience } : {}),
  });
  expect(created.status).toBe(201);
  return String(created.body.client_id);
}

async function apiClient(audience?: string[]) {
  const created = await adminJson(server, 'POST', '/admin/clients', {
    client_name: 'nightly export',
    grant_types: ['client_credentials'],
    ...(audience ? { audience } : {}),
  });
  expect(created.status).toBe(201);
  const { client_id: id, client_secret: secret } = created.body as Record<string, string>;
  return (form: Record<string, string> = {}) =>
    tokenRequest(
      server,
      { grant_type: 'client_credentials', ...form },
      { authorization: `Basic ${Buffer.from(`${id}:${secret!}`).toString('base64')}` },
    );
}

/** The authorization endpoint's error for this request (it redirects back with it), or null. */
async function authorizationError(s: TestServer, params: Record<string, string>) {
  const { url } = authorizeUrl(s.issuer, { redirect_uri: REDIRECT, ...params });
  const res = await fetch(url, { redirect: 'manual' });
  const back = new URL(res.headers.get('location')!);
  return back.searchParams.get('error')
    ? { error: back.searchParams.get('error'), description: back.searchParams.get('error_description') }
    : null;
}

/** Signs a person in for `clientId` with `params` and exchanges the code. */
async function codeTokens(clientId: string, params: Record<string, string>) {
  const { callback, verifier } = await signIn(server, {
    authorize: { client_id: clientId, redirect_uri: REDIRECT, ...params },
  });
  return tokenRequest(server, {
    grant_type: 'authorization_code',
    code: callback.searchParams.get('code')!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
}

describe('threat: a client cannot get a token for an API it was not registered for', () => {
  it('authorization code: an allowed audience is issued, by resource or by Hydra’s audience parameter; any other is refused', async () => {
    const clientId = await webClient([MCP]);
    const byResource = await codeTokens(clientId, { resource: MCP });
    expect(byResource.status).toBe(200);
    expect(audienceOf(byResource.body.access_token)).toEqual([MCP]);
    const byAudience = await codeTokens(clientId, { audience: MCP });
    expect(byAudience.status).toBe(200);
    expect(audienceOf(byAudience.body.access_token)).toEqual([MCP]);

    const refused = await authorizationError(server, { client_id: clientId, resource: REPORTS });
    expect(refused?.error).toBe('invalid_target');
    expect((await authorizationError(server, { client_id: clientId, audience: REPORTS }))?.error).toBe(
      'invalid_target',
    );
    // Naming none asks for the platform's APIs, which this client was not given either.
    expect((await authorizationError(server, { client_id: clientId }))?.error).toBe('invalid_target');
    // An audience the server does not know is answered alike: nothing tells which ones exist.
    const unknown = await authorizationError(server, {
      client_id: clientId,
      resource: 'https://elsewhere.example/',
    });
    expect(unknown).toEqual(refused);
    // Hydra's several audiences, or an audience and a resource that disagree, are refused too.
    expect(
      (await authorizationError(server, { client_id: clientId, audience: `${MCP} ${REPORTS}` }))?.error,
    ).toBe('invalid_target');
    expect(
      (await authorizationError(server, { client_id: clientId, audience: MCP, resource: REPORTS }))?.error,
    ).toBe('invalid_request');
  });

  it("the platform's own application gets the platform's APIs, and no resource server", async () => {
    const { callback, verifier } = await signIn(server);
    const tokens = await exchangeCode(server, callback.searchParams.get('code')!, verifier);
    expect(tokens.status).toBe(200);
    expect(audienceOf(tokens.body.access_token)).toEqual([PLATFORM_API]);
    const { url } = authorizeUrl(server.issuer, { resource: MCP });
    const res = await fetch(url, { redirect: 'manual' });
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('client credentials: an allowed audience is issued; another, or none the client was given, is refused', async () => {
    const token = await apiClient([REPORTS]);
    for (const form of [{ audience: REPORTS }, { resource: REPORTS }] as Form[]) {
      const ok = await token(form);
      expect(ok.status).toBe(200);
      expect(audienceOf(ok.body.access_token)).toEqual([REPORTS]);
    }
    const others: Form[] = [
      { audience: MCP },
      { resource: MCP },
      {},
      { resource: 'https://elsewhere.example/' },
    ];
    for (const form of others) {
      const refused = await token(form);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_target');
      expect(refused.body.access_token).toBeUndefined();
    }
    expect((await token({ audience: REPORTS, resource: MCP })).body.error).toBe('invalid_request');
  });

  it('refresh keeps the granted audience and cannot widen it; a client narrowed after the grant cannot refresh', async () => {
    const clientId = await webClient([PLATFORM_API, MCP]);
    const refresh = (refreshToken: unknown, form: Record<string, string> = {}) =>
      tokenRequest(server, {
        grant_type: 'refresh_token',
        refresh_token: String(refreshToken),
        client_id: clientId,
        ...form,
      });

    const first = await codeTokens(clientId, { resource: MCP });
    const refreshed = await refresh(first.body.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(audienceOf(refreshed.body.access_token)).toEqual([MCP]);
    // The client may have the platform's APIs, but this grant was for the MCP server only.
    const widened = await refresh(refreshed.body.refresh_token, { resource: PLATFORM_API });
    expect(widened.status).toBe(400);
    expect(widened.body.error).toBe('invalid_target');

    const second = await codeTokens(clientId, { resource: MCP });
    const narrowed = await adminJson(server, 'PATCH', `/admin/clients/${clientId}`, [
      { op: 'replace', path: '/audience', value: [PLATFORM_API] },
    ]);
    expect(narrowed.status).toBe(200);
    const after = await refresh(second.body.refresh_token);
    expect(after.status).toBe(400);
    expect(after.body.error).toBe('invalid_target');
    expect(after.body.access_token).toBeUndefined();
  });

  it("an empty allow-list: the platform's APIs only, named or not", async () => {
    for (const audience of [undefined, []]) {
      const token = await apiClient(audience);
      for (const form of [{}, { resource: PLATFORM_API }] as Form[]) {
        const ok = await token(form);
        expect(ok.status).toBe(200);
        expect(audienceOf(ok.body.access_token)).toEqual([PLATFORM_API]);
      }
      for (const form of [{ audience: MCP }, { resource: REPORTS }] as Form[]) {
        expect((await token(form)).body.error).toBe('invalid_target');
      }
    }
    const clientId = await webClient([]);
    expect((await authorizationError(server, { client_id: clientId, resource: MCP }))?.error).toBe(
      'invalid_target',
    );
  });

  it('a dynamically registered client gets the resource servers it was given, never the platform’s APIs', async () => {
    const register = async (body: Record<string, unknown>) => {
      const res = await fetch(`${server.publicUrl}/oauth2/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Desk Assistant', redirect_uris: [REDIRECT], ...body }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const everyResourceServer = await register({ token_endpoint_auth_method: 'none' });
    expect(everyResourceServer.body.audience).toEqual([MCP, REPORTS]);

    const narrow = await register({ token_endpoint_auth_method: 'none', audience: [MCP] });
    expect(narrow.status).toBe(201);
    const clientId = String(narrow.body.client_id);
    const tokens = await codeTokens(clientId, { resource: MCP });
    expect(audienceOf(tokens.body.access_token)).toEqual([MCP]);
    const refused: Form[] = [{ resource: REPORTS }, { audience: REPORTS }, { resource: PLATFORM_API }, {}];
    for (const params of refused) {
      expect((await authorizationError(server, { client_id: clientId, ...params }))?.error).toBe(
        'invalid_target',
      );
    }
    // It cannot register itself the platform's APIs, or an audience as anything but a list.
    for (const audience of [[PLATFORM_API], ['https://elsewhere.example/'], MCP]) {
      const refused = await register({ token_endpoint_auth_method: 'none', audience });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toBe('invalid_client_metadata');
    }
  });

  it('threat: a client registered dynamically before audiences were enforced (stored with no list) gets the platform’s APIs', async () => {
    // As the earlier code stored it: an empty audience list, with its registration access token row.
    const res = await fetch(`${server.publicUrl}/oauth2/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Old assistant',
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'none',
      }),
    });
    expect(res.status).toBe(201);
    const clientId = String(((await res.json()) as Record<string, unknown>).client_id);
    await sql`update oauth2_models set payload = jsonb_set(payload, '{audience}', '[]'::jsonb)
      where model = 'Client' and id = ${clientId}`.execute(server.db.kysely);

    for (const params of [{}, { resource: PLATFORM_API }, { audience: PLATFORM_API }] as Form[]) {
      expect((await authorizationError(server, { client_id: clientId, ...params }))?.error).toBe(
        'invalid_target',
      );
    }
    const tokens = await codeTokens(clientId, { resource: MCP });
    expect(audienceOf(tokens.body.access_token)).toEqual([MCP]);
  });
});
