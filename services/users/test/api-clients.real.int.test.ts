import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, sql } from '@acme/db';
import type { Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { start as startUsers } from '../src/index.ts';
import { seedDemo } from '../src/seed.ts';
import { startAuthStack } from './auth-stack.ts';
import { http, runCliJson } from './harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * API clients end to end through the user service's admin API and CLI and our real authorization
 * server, on one database as `npm start` runs them: create (secret once), client-credentials token
 * with the organisation, scope groups and authenticationMode "api", list, revoke, refused after.
 */

describe('API clients through the user service and the real authorization server', () => {
  let db: Database;
  const urls: Record<string, string> = {};
  const closers: (() => Promise<void>)[] = [];
  let acmeId: string;

  beforeAll(async () => {
    db = await createTestDb();
    Object.assign(urls, await startAuthStack(db, closers, { appOrigin: 'http://localhost:4000' }));
    const [usersPublic, usersAdmin] = await Promise.all([freePort(), freePort()]);
    const users = await startUsers({
      db,
      logger: false,
      env: {
        USERS_PUBLIC_PORT: String(usersPublic),
        USERS_ADMIN_PORT: String(usersAdmin),
        USERS_MANAGEMENT_PORT: '0',
        IDENTITY_ADMIN_URL: urls.identityAdmin!,
        OAUTH2_ADMIN_URL: urls.oauth2Admin!,
      },
    });
    closers.push(users.close);
    urls.usersAdmin = users.urls.admin!;
    acmeId = (await seedDemo(urls.usersAdmin)).organisationId;
    // Ada may grant the scope groups she holds, and only those.
    await setScopeGroups('ada@acme.test', ['research', 'quant']);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await db.close();
  });

  const cli = (...argv: string[]) => runCliJson(urls.usersAdmin!, argv);

  async function setScopeGroups(email: string, scopeGroups: string[]) {
    const list = await http(`${urls.usersAdmin}/admin/users?organisationId=${acmeId}`);
    const user = (list.body as any).users.find((u: any) => u.email === email);
    const res = await http(`${urls.usersAdmin}/admin/users/${user.id}`, {
      method: 'PATCH',
      json: { scopeGroups },
    });
    expect(res.status).toBe(200);
  }

  async function clientCredentials(id: string, secret: string) {
    const res = await fetch(`${urls.issuer}/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  it('an org admin creates a client with the CLI; its token carries the organisation, scope groups and mode api', async () => {
    const created = await cli(
      'api-client:create',
      '--org',
      acmeId,
      '--name',
      'nightly export',
      '--scope-groups',
      'research, quant',
      '--as',
      'ada@acme.test',
    );
    expect(created.code).toBe(0);
    expect(created.json).toMatchObject({
      organisationId: acmeId,
      name: 'nightly export',
      scopeGroups: ['research', 'quant'],
      revokedAt: null,
    });
    const { id, clientSecret } = created.json;
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const token = await clientCredentials(id, clientSecret);
    expect(token.status).toBe(200);
    const jwks = createRemoteJWKSet(new URL(`${urls.issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(token.body.access_token, jwks, { issuer: urls.issuer });
    expect(payload.sub).toBe(id);
    expect(payload.ext).toEqual({
      user: { authenticationMode: 'api' },
      organisation: { id: acmeId, name: 'Acme' },
      scopeGroups: ['research', 'quant'],
    });

    // Listed without its secret; the secret is stored nowhere in clear.
    const listed = await cli('api-client:list', '--org', acmeId);
    expect(listed.code).toBe(0);
    expect(listed.json.apiClients.map((c: any) => c.id)).toContain(id);
    expect(listed.stdout).not.toContain(clientSecret);
    const dump = await sql<{ t: string }>`
      select string_agg(payload::text, ' ') as t from oauth2_models where model = 'Client'`.execute(
      db.kysely,
    );
    expect(dump.rows[0]!.t).not.toContain(clientSecret);
  });

  it('a bad secret is refused; revocation takes effect at the next token request', async () => {
    const created = await cli('api-client:create', '--org', acmeId, '--scope-groups', 'research');
    expect(created.code).toBe(0);
    const { id, clientSecret } = created.json;
    expect(created.json.name).toBe('API client');

    const bad = await clientCredentials(id, `${clientSecret}x`);
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_client');
    expect((await clientCredentials(id, clientSecret)).status).toBe(200);

    const revoked = await cli('api-client:revoke', '--id', id, '--as', 'ada@acme.test');
    expect(revoked.code).toBe(0);
    expect(revoked.json.revokedAt).toEqual(expect.any(String));
    const after = await clientCredentials(id, clientSecret);
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_client');

    // Revoking again answers the same record; the list shows it revoked.
    const again = await cli('api-client:revoke', '--id', id);
    expect(again.code).toBe(0);
    expect(again.json.revokedAt).toBe(revoked.json.revokedAt);
    const listed = await cli('api-client:list', '--org', acmeId);
    expect(listed.json.apiClients.find((c: any) => c.id === id).revokedAt).toBe(revoked.json.revokedAt);
  });

  it('scope group escalation: an acting user cannot grant an API client a scope group they do not hold', async () => {
    const before = await cli('api-client:list', '--org', acmeId);
    // Ada holds research and quant (and ManageAccessTokens), not finance.
    const escalated = await http(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: {
        organisationId: acmeId,
        name: 'x',
        scopeGroups: ['research', 'finance'],
        actorEmail: 'ada@acme.test',
      },
    });
    expect(escalated.status).toBe(403);
    expect(escalated.body).toEqual({
      errorCode: 'PERMISSION_DENIED',
      message: 'The acting user may not grant scope groups they do not hold: finance.',
    });
    // Grace is a member (members hold ManageAccessTokens) with no scope groups.
    const member = await cli(
      'api-client:create',
      '--org',
      acmeId,
      '--scope-groups',
      'research',
      '--as',
      'grace@acme.test',
    );
    expect(member.code).not.toBe(0);
    expect(member.stderr).toContain('PERMISSION_DENIED');
    // Nothing was created by the refused requests.
    const after = await cli('api-client:list', '--org', acmeId);
    expect(after.json.apiClients).toHaveLength(before.json.apiClients.length);
    // Granting a subset of her groups is allowed.
    const subset = await cli(
      'api-client:create',
      '--org',
      acmeId,
      '--scope-groups',
      'quant',
      '--as',
      'ada@acme.test',
    );
    expect(subset.code).toBe(0);
    expect(subset.json.scopeGroups).toEqual(['quant']);
  });

  it('refuses an acting user outside the organisation, and bad input, with {errorCode, message}', async () => {
    const globex = await http(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Globex', domains: ['globex.test'], products: ['Platform'] },
    });
    const globexId = (globex.body as any).id as string;
    const denied = await http(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: { organisationId: globexId, name: 'x', scopeGroups: ['research'], actorEmail: 'ada@acme.test' },
    });
    expect(denied.status).toBe(403);
    expect((denied.body as any).errorCode).toBe('PERMISSION_DENIED');
    const unknownActor = await http(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: { organisationId: acmeId, name: 'x', scopeGroups: ['research'], actorEmail: 'nobody@acme.test' },
    });
    expect((unknownActor.body as any).errorCode).toBe('PERMISSION_DENIED');

    for (const json of [
      {},
      { organisationId: acmeId, name: 'x', scopeGroups: [] },
      { organisationId: acmeId, name: 'x', scopeGroups: ['no spaces allowed'] },
      { organisationId: 'not-a-uuid', name: 'x', scopeGroups: ['a'] },
      { organisationId: acmeId, name: 'x', scopeGroups: ['a'], clientSecret: 'mine' },
    ]) {
      const res = await http(`${urls.usersAdmin}/admin/api-clients`, { method: 'POST', json });
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((res.body as any).errorCode).toBe('INVALID_REQUEST');
    }
    const noOrg = await http(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: { organisationId: '00000000-0000-4000-8000-000000000000', name: 'x', scopeGroups: ['a'] },
    });
    expect((noOrg.body as any).errorCode).toBe('ORGANISATION_NOT_FOUND');
    const unknown = await http(
      `${urls.usersAdmin}/admin/api-clients/00000000-0000-4000-8000-000000000000/revoke`,
      {
        method: 'POST',
      },
    );
    expect(unknown.status).toBe(404);
    expect((unknown.body as any).errorCode).toBe('API_CLIENT_NOT_FOUND');
    // Nothing was created by the refused requests.
    const count = await sql<{
      n: number;
    }>`select count(*)::int as n from api_clients where organisation_id = ${globexId}`.execute(db.kysely);
    expect(count.rows[0]!.n).toBe(0);
  });

  it('the CLI needs --org and --scope-groups', async () => {
    const res = await cli('api-client:create', '--org', acmeId);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--scope-groups is required');
  });
});
