import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../harness.ts';
import { startConsoleStack, type ConsoleStack } from './console-harness.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The console's API clients section registering the organisation's own web app (authorization
 * code, exact redirect URIs) beside its client-credentials clients, through the real
 * authorization server's admin client API.
 */
describe('console API: an organisation registers its own web app', () => {
  let stack: ConsoleStack;
  let acme = '';
  let other = '';
  let ada: { id: string; identityId: string; email: string };
  const tokens: Record<string, string> = {};
  const base = () => `/console/organisations/${acme}`;
  const CALLBACK = 'https://reports.acme.test/callback';

  async function atServer(clientId: string) {
    const res = await fetch(`${stack.urls.oauth2Admin}/admin/clients/${encodeURIComponent(clientId)}`);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

  async function countClients() {
    const res = await fetch(`${stack.urls.oauth2Admin}/admin/clients?owner=${acme}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as unknown[]).length;
  }

  beforeAll(async () => {
    stack = await startConsoleStack();
    acme = await stack.newOrganisation('acme.test');
    other = await stack.newOrganisation('other.test');
    ada = await stack.newUser(acme, 'acme.test', 'org-admin');
    const lead = await stack.newUser(acme, 'acme.test', 'admin');
    const grace = await stack.newUser(acme, 'acme.test', 'member');
    const stranger = await stack.newUser(other, 'other.test', 'org-admin');
    const patched = await http(`${stack.svc.adminUrl}/admin/users/${ada.id}`, {
      method: 'PATCH',
      json: { scopeGroups: ['reporting'] },
    });
    expect(patched.status).toBe(200);
    for (const [name, person] of Object.entries({ ada, lead, grace, stranger })) {
      tokens[name] = await stack.tokenFor(person.identityId);
    }
  }, 60_000);
  afterAll(async () => stack?.close());

  it('an org-admin registers a web app: the secret once, the client at the server has exactly those redirect URIs and grants', async () => {
    const created = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
      kind: 'web',
      name: 'Reports',
      redirectUris: [CALLBACK, 'http://localhost:8080/callback'],
      postLogoutRedirectUris: ['https://reports.acme.test/'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      kind: 'web',
      name: 'Reports',
      scopeGroups: [],
      redirectUris: [CALLBACK, 'http://localhost:8080/callback'],
      createdBy: ada.email,
      revokedAt: null,
      clientSecret: expect.any(String),
    });
    const { id, clientSecret } = created.body;

    const client = await atServer(id);
    expect(client.status).toBe(200);
    expect(client.body.redirect_uris).toEqual([CALLBACK, 'http://localhost:8080/callback']);
    expect(client.body.post_logout_redirect_uris).toEqual(['https://reports.acme.test/']);
    expect([...client.body.grant_types].sort()).toEqual(['authorization_code', 'refresh_token']);
    expect(client.body.response_types).toEqual(['code']);
    expect(client.body.token_endpoint_auth_method).toBe('client_secret_basic');
    expect(client.body.skip_consent).toBe(false);
    expect(client.body.owner).toBe(acme);
    expect(JSON.stringify(client.body)).not.toContain(clientSecret);

    const listed = await stack.call(tokens.ada, 'GET', `${base()}/api-clients`);
    expect(listed.status).toBe(200);
    expect(listed.body.apiClients).toContainEqual(
      expect.objectContaining({
        id,
        kind: 'web',
        redirectUris: [CALLBACK, 'http://localhost:8080/callback'],
      }),
    );
    expect(JSON.stringify(listed.body)).not.toContain(clientSecret);

    const events = await stack.db.kysely
      .selectFrom('security_events')
      .select(['type', 'details'])
      .where('organisation_id', '=', acme)
      .where('type', '=', 'api_client.created')
      .execute();
    expect(events.map((e) => e.details)).toContainEqual(
      expect.objectContaining({ clientId: id, kind: 'web' }),
    );
    expect(JSON.stringify(events)).not.toContain(clientSecret);
  });

  it('the existing client-credentials shape (no kind) still works and lists as client_credentials', async () => {
    const created = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
      name: 'nightly export',
      scopeGroups: ['reporting'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ kind: 'client_credentials', redirectUris: [] });
    const client = await atServer(created.body.id);
    expect(client.body.grant_types).toEqual(['client_credentials']);
  });

  it('revoking a web app deletes it at the authorization server', async () => {
    const created = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
      kind: 'web',
      name: 'Short-lived',
      redirectUris: [CALLBACK],
    });
    expect(created.status).toBe(201);
    const revoked = await stack.call(tokens.ada, 'POST', `${base()}/api-clients/${created.body.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ kind: 'web', revokedAt: expect.any(String) });
    expect((await atServer(created.body.id)).status).toBe(404);
  });

  it('a member or an admin without the permission is refused, and nothing is created', async () => {
    const before = await countClients();
    for (const who of ['grace', 'lead']) {
      const res = await stack.call(tokens[who], 'POST', `${base()}/api-clients`, {
        kind: 'web',
        name: 'Not mine',
        redirectUris: [CALLBACK],
      });
      expect(res.status, who).toBe(403);
      expect(res.body).toMatchObject({ errorCode: expect.any(String), message: expect.any(String) });
    }
    expect(await countClients()).toBe(before);
  });

  it('another organisation can neither see nor revoke the web app', async () => {
    const created = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, {
      kind: 'web',
      name: 'Ours',
      redirectUris: [CALLBACK],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const theirList = await stack.call(tokens.stranger, 'GET', `/console/organisations/${other}/api-clients`);
    expect(theirList.status).toBe(200);
    expect(JSON.stringify(theirList.body)).not.toContain(id);
    const ourList = await stack.call(tokens.stranger, 'GET', `${base()}/api-clients`);
    expect(ourList.status).toBe(403);
    const viaTheirs = await stack.call(
      tokens.stranger,
      'POST',
      `/console/organisations/${other}/api-clients/${id}/revoke`,
    );
    expect(viaTheirs.status).toBe(404);
    const viaOurs = await stack.call(tokens.stranger, 'POST', `${base()}/api-clients/${id}/revoke`);
    expect(viaOurs.status).toBe(403);
    expect((await atServer(id)).status).toBe(200);
  });

  it('bad redirect URIs answer 400 with the reason and create nothing', async () => {
    const before = await countClients();
    const rows = await stack.db.kysely.selectFrom('api_clients').select('id').execute();
    const cases: [unknown, RegExp?][] = [
      [{ kind: 'web', name: 'x', redirectUris: ['http://reports.acme.test/callback'] }, /https/],
      [{ kind: 'web', name: 'x', redirectUris: [`${CALLBACK}#top`] }, /fragment/],
      [{ kind: 'web', name: 'x', redirectUris: ['not a uri'] }, /absolute/],
      [
        { kind: 'web', name: 'x', redirectUris: [CALLBACK], postLogoutRedirectUris: ['http://evil.test/'] },
        /https/,
      ],
      [{ kind: 'web', name: 'x', redirectUris: Array.from({ length: 11 }, (_, i) => `${CALLBACK}/${i}`) }],
      [{ kind: 'web', name: 'x', redirectUris: [] }],
      [{ kind: 'web', name: 'x' }],
      [{ kind: 'web', name: '', redirectUris: [CALLBACK] }],
      [{ kind: 'web', name: 'x', redirectUris: [CALLBACK], scopeGroups: ['reporting'] }],
      [{ kind: 'desktop', name: 'x', redirectUris: [CALLBACK] }],
      [JSON.parse(`{"kind":"web","name":"x","redirectUris":["${CALLBACK}"],"__proto__":{"admin":true}}`)],
      [JSON.parse(`{"kind":"web","name":"x","redirectUris":["${CALLBACK}"],"constructor":{"prototype":{}}}`)],
    ];
    for (const [json, reason] of cases) {
      const res = await stack.call(tokens.ada, 'POST', `${base()}/api-clients`, json);
      expect(res.status, JSON.stringify(json).slice(0, 120)).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'INVALID_REQUEST', message: expect.any(String) });
      if (reason) expect(res.body.message).toMatch(reason);
    }
    expect(await countClients()).toBe(before);
    expect(await stack.db.kysely.selectFrom('api_clients').select('id').execute()).toHaveLength(rows.length);
  });
});
