import { sql } from '@acme/db';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { adminJson, tokenRequest, useTestServer } from './harness.ts';

// API clients: Hydra's admin client API, the client-credentials grant, hashed secrets, deletion.

const server = useTestServer();

const EXT = {
  user: { authenticationMode: 'api' },
  organisation: { id: '0b0a5c36-7a0e-4a55-9d4f-2a3c5f9a1e11' },
  scopeGroups: ['research'],
};

async function createClient(body: Record<string, unknown> = {}) {
  const res = await adminJson(server, 'POST', '/admin/clients', {
    client_name: 'nightly export',
    grant_types: ['client_credentials'],
    metadata: { ext: EXT },
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body as { client_id: string; client_secret: string } & Record<string, unknown>;
}

const basic = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
});

describe('API clients', () => {
  it('a created client gets a signed JWT with its ext through the client-credentials grant', async () => {
    const client = await createClient();
    expect(client.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client.grant_types).toEqual(['client_credentials']);

    const token = await tokenRequest(
      server,
      { grant_type: 'client_credentials' },
      basic(client.client_id, client.client_secret),
    );
    expect(token.status).toBe(200);
    expect(token.body.token_type).toBe('Bearer');
    expect(token.body.refresh_token).toBeUndefined();
    const jwks = createRemoteJWKSet(new URL(`${server.publicUrl}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(token.body.access_token as string, jwks, { issuer: server.issuer });
    expect(payload.sub).toBe(client.client_id);
    expect(payload.client_id).toBe(client.client_id);
    expect(payload.ext).toEqual(EXT);
  });

  it('client_secret_post works when the client was created for it', async () => {
    const client = await createClient({ token_endpoint_auth_method: 'client_secret_post' });
    const token = await tokenRequest(server, {
      grant_type: 'client_credentials',
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(token.status).toBe(200);
  });

  it('stores only a hash of the secret, and never shows it again', async () => {
    const client = await createClient();
    const row = (
      await sql<{ payload: { client_secret: string } }>`
        select payload from oauth2_models where model = 'Client' and id = ${client.client_id}`.execute(
        server.db.kysely,
      )
    ).rows[0]!;
    expect(row.payload.client_secret).toMatch(/^sha256:/);
    expect(JSON.stringify(row.payload)).not.toContain(client.client_secret);
    const read = await adminJson(server, 'GET', `/admin/clients/${client.client_id}`);
    expect(read.status).toBe(200);
    expect(read.body.client_secret).toBeUndefined();
    expect(read.body.metadata).toEqual({ ext: EXT });
  });

  it('a bad secret, an empty one or an unknown client is invalid_client', async () => {
    const client = await createClient();
    for (const headers of [
      basic(
        client.client_id,
        client.client_secret.slice(0, -1) + (client.client_secret.endsWith('A') ? 'B' : 'A'),
      ),
      basic(client.client_id, 'sha256:' + client.client_secret),
      basic('00000000-0000-4000-8000-000000000000', client.client_secret),
    ]) {
      const token = await tokenRequest(server, { grant_type: 'client_credentials' }, headers);
      expect(token.status).toBe(401);
      expect(token.body.error).toBe('invalid_client');
      expect(token.body.access_token).toBeUndefined();
    }
    // The stored hash itself is not a credential.
    const row = (
      await sql<{ payload: { client_secret: string } }>`
        select payload from oauth2_models where model = 'Client' and id = ${client.client_id}`.execute(
        server.db.kysely,
      )
    ).rows[0]!;
    const withHash = await tokenRequest(
      server,
      { grant_type: 'client_credentials' },
      basic(client.client_id, row.payload.client_secret),
    );
    expect(withHash.status).toBe(401);
  });

  it('a deleted (revoked) client is refused at its next token request', async () => {
    const client = await createClient();
    const creds = basic(client.client_id, client.client_secret);
    expect((await tokenRequest(server, { grant_type: 'client_credentials' }, creds)).status).toBe(200);
    const removed = await fetch(`${server.admin}/admin/clients/${client.client_id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    const after = await tokenRequest(server, { grant_type: 'client_credentials' }, creds);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_client');
    expect((await adminJson(server, 'GET', `/admin/clients/${client.client_id}`)).status).toBe(404);
    expect((await adminJson(server, 'DELETE', `/admin/clients/${client.client_id}`)).body.error).toBe(
      'not_found',
    );
  });

  it('an API client cannot use the browser grants, and a browser client cannot use client credentials', async () => {
    const client = await createClient();
    const code = await tokenRequest(
      server,
      {
        grant_type: 'authorization_code',
        code: 'ory_ac_x',
        redirect_uri: 'http://localhost:4000/account/callback',
        code_verifier: 'v'.repeat(43),
      },
      basic(client.client_id, client.client_secret),
    );
    // oidc-provider answers a grant type the client may not use with invalid_request.
    expect(code.status).toBe(400);
    expect(code.body.error).toBe('invalid_request');
    expect(code.body.error_description).toMatch(/grant type is not allowed/);
    const platform = await tokenRequest(server, { grant_type: 'client_credentials', client_id: 'platform' });
    expect(platform.status).toBe(400);
    expect(platform.body.error).toBe('invalid_request');
    expect(platform.body.access_token).toBeUndefined();
  });

  it("refuses a malformed client with Hydra's invalid_client_metadata and creates nothing", async () => {
    const before = await countClients();
    for (const body of [
      { client_name: 'x', grant_types: ['client_credentials'], token_endpoint_auth_method: 'none' },
      { client_name: 'x', grant_types: ['client_credentials'], metadata: [] },
      { client_name: 'x', grant_types: ['client_credentials'], client_secret: 'chosen-by-caller' },
      { client_name: 'x', grant_types: ['implicit'] },
      { client_name: 'x', grant_types: ['client_credentials'], unknown_field: true },
    ]) {
      const res = await adminJson(server, 'POST', '/admin/clients', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_client_metadata');
      expect(res.body.error_description).toMatch(/client is invalid/);
    }
    for (const body of [
      {},
      { client_name: 'x', grant_types: ['client_credentials'], redirect_uris: ['https://evil.test/cb'] },
    ]) {
      const res = await adminJson(server, 'POST', '/admin/clients', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
    }
    const malformed = await fetch(`${server.admin}/admin/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"client_name":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('invalid_request');
    expect(await countClients()).toBe(before);
  });

  it('answers not_found for an unknown client id (the applications’ own ids are shown: ory-openapi.int.test.ts)', async () => {
    const res = await adminJson(server, 'GET', '/admin/clients/not-a-client');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('not_found');
  });
});

async function countClients(): Promise<number> {
  const row = (
    await sql<{ n: number }>`select count(*)::int as n from oauth2_models where model = 'Client'`.execute(
      server.db.kysely,
    )
  ).rows[0]!;
  return row.n;
}
