import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliJson } from './harness.ts';
import { Jar } from './jar.ts';
import { boundSignIn, startRealStack, type RealStack } from './real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Issue 31, items 6 and 12: one deprovisioning routine for the console, the directory (SCIM) and the
 * operator's CLI. Whichever path deprovisions a person, at once: their identity session ends, the
 * access token they already hold is refused by `/userinfo` and introspection (not only at its
 * expiry or the next refresh), their refresh token is refused, and their API clients get no new
 * token and are listed as revoked. The real identity service, user service and authorization
 * server run in process on one database, as `npm start` runs them.
 */

const APP_ORIGIN = 'http://localhost:4000';
const PASSWORD = 'Research-Demo-2026!';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('deprovisioning ends sessions, issued access tokens and API clients at once', () => {
  const urls: Record<string, string> = {};
  let stack: RealStack | undefined;
  let organisationId = '';
  let adminToken = '';
  let scimToken = '';
  let seq = 0;

  const json = (url: string, init: RequestInit & { json?: unknown } = {}) => new Jar().fetch(url, init);
  const consoleCall = (method: string, path: string, body?: unknown) =>
    json(`${urls.users}/console/organisations/${organisationId}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(body === undefined ? {} : { json: body }),
    });
  const scim = (method: string, path: string, body?: unknown) =>
    json(`${urls.users}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      identityEnv: (usersAdminUrl) => ({ USERS_ADMIN_URL: usersAdminUrl }),
    });
    Object.assign(urls, stack.urls);
    const org = await json(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Leavers Ltd', domains: ['leavers.test'], products: ['Platform'] },
    });
    organisationId = org.body.id;
    const admin = await newUser('org-admin');
    adminToken = (await signIn(new Jar(APP_ORIGIN), admin.email)).access_token;
    const created = await consoleCall('POST', '/scim/tokens', { name: 'Entra ID' });
    expect(created.res.status).toBe(201);
    scimToken = created.body.token;
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  async function newUser(role = 'member') {
    seq += 1;
    const created = await json(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId,
        email: `person${seq}@leavers.test`,
        firstName: 'Test',
        lastName: `Person${seq}`,
        role,
        password: PASSWORD,
        scopeGroups: ['research'],
      },
    });
    expect(created.res.status).toBe(201);
    return created.body as { id: string; email: string; identityId: string };
  }

  const { tokenRequest, signIn } = boundSignIn(urls, APP_ORIGIN, PASSWORD);

  const userinfo = async (accessToken: string) =>
    (await fetch(`${urls.issuer}/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } })).status;
  const introspect = async (token: string) =>
    (
      await json(`${urls.oauth2Admin}/admin/oauth2/introspect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      })
    ).body;
  const whoami = async (browser: Jar) =>
    (
      await browser.fetch(`${urls.identityPublic}/sessions/whoami`, {
        headers: { accept: 'application/json' },
      })
    ).res.status;

  /** A signed-in person with an access token, a refresh token and an API client of their own, all working. */
  async function signedInPerson(role = 'member') {
    const person = await newUser(role);
    const browser = new Jar(APP_ORIGIN);
    const tokens = await signIn(browser, person.email);
    const client = await json(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: { organisationId, name: `export ${seq}`, scopeGroups: ['research'], actorEmail: person.email },
    });
    expect(client.res.status).toBe(201);
    const basic = `Basic ${Buffer.from(`${client.body.id}:${client.body.clientSecret}`).toString('base64')}`;
    const clientToken = await tokenRequest({ grant_type: 'client_credentials' }, basic);
    expect(clientToken.status).toBe(200);
    // Before: everything works.
    expect(await whoami(browser)).toBe(200);
    expect(await userinfo(tokens.access_token)).toBe(200);
    expect((await introspect(tokens.access_token)).active).toBe(true);
    return { person, browser, tokens, clientId: client.body.id as string, basic };
  }

  type Signed = Awaited<ReturnType<typeof signedInPerson>>;

  /** Right after the deprovisioning call: nothing the person held still works. */
  async function expectNothingWorks({ browser, tokens, clientId, basic }: Signed) {
    expect(await whoami(browser)).toBe(401);
    expect(await userinfo(tokens.access_token)).toBe(401);
    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    expect(await introspect(tokens.refresh_token)).toEqual({ active: false });
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'platform',
    });
    expect(refresh.body.error).toBe('invalid_grant');
    const clientToken = await tokenRequest({ grant_type: 'client_credentials' }, basic);
    expect(clientToken.status).toBe(401);
    expect(clientToken.body.error).toBe('invalid_client');
    const clients = await consoleCall('GET', '/api-clients');
    expect(clients.body.apiClients.find((c: any) => c.id === clientId).revokedAt).not.toBeNull();
  }

  it("console deactivation ends API clients' tokens: no new token, listed as revoked", async () => {
    const signed = await signedInPerson();
    const off = await consoleCall('POST', `/members/${signed.person.id}/deactivate`);
    expect(off.res.status).toBe(200);
    const clientToken = await tokenRequest({ grant_type: 'client_credentials' }, signed.basic);
    expect(clientToken.body.error).toBe('invalid_client');
    const clients = await consoleCall('GET', '/api-clients');
    expect(clients.body.apiClients.find((c: any) => c.id === signed.clientId).revokedAt).not.toBeNull();
  });

  it('a deactivated person cannot be named to make an API client that outlives their deprovisioning', async () => {
    const signed = await signedInPerson();
    const off = await consoleCall('POST', `/members/${signed.person.id}/deactivate`);
    expect(off.res.status).toBe(200);
    const again = await json(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: {
        organisationId,
        name: `after ${seq}`,
        scopeGroups: ['research'],
        actorEmail: signed.person.email,
      },
    });
    expect(again.res.status).toBe(403);
    expect(again.body.errorCode).toBe('ACCOUNT_INACTIVE');
    const clients = await consoleCall('GET', '/api-clients');
    expect(
      clients.body.apiClients.filter((c: any) => c.revokedAt === null && c.name === `after ${seq}`),
    ).toEqual([]);
  });

  it('after console deactivation /userinfo and introspection refuse an already issued access token', async () => {
    const signed = await signedInPerson();
    const off = await consoleCall('POST', `/members/${signed.person.id}/deactivate`);
    expect(off.res.status).toBe(200);
    await expectNothingWorks(signed);
  });

  it('after SCIM deactivation (active: false) /userinfo and introspection refuse an already issued access token', async () => {
    const signed = await signedInPerson();
    const off = await scim('PATCH', `/Users/${signed.person.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.res.status).toBe(200);
    await expectNothingWorks(signed);
  });

  it('after SCIM deletion /userinfo and introspection refuse an already issued access token', async () => {
    const signed = await signedInPerson();
    const deleted = await scim('DELETE', `/Users/${signed.person.id}`);
    expect(deleted.res.status).toBe(204);
    await expectNothingWorks(signed);
  });

  it("after the operator's user:deactivate /userinfo and introspection refuse an already issued access token", async () => {
    const signed = await signedInPerson();
    const cli = await runCliJson(urls.usersAdmin!, ['user:deactivate', '--id', signed.person.id]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json).toMatchObject({ id: signed.person.id, status: 'deactivated' });
    await expectNothingWorks(signed);
    // Reactivated by the operator: a new sign-in works again (the old tokens stay dead).
    const back = await runCliJson(urls.usersAdmin!, ['user:reactivate', '--id', signed.person.id]);
    expect(back.json).toMatchObject({ status: 'active' });
    const fresh = await signIn(new Jar(APP_ORIGIN), signed.person.email);
    expect(await userinfo(fresh.access_token)).toBe(200);
    expect(await userinfo(signed.tokens.access_token)).toBe(401);
  });

  it("after the operator's DELETE /admin/users/{id} /userinfo and introspection refuse an already issued access token", async () => {
    const signed = await signedInPerson();
    const removed = await fetch(`${urls.usersAdmin}/admin/users/${signed.person.id}`, { method: 'DELETE' });
    expect(removed.status).toBe(204);
    expect(await whoami(signed.browser)).toBe(401);
    expect(await userinfo(signed.tokens.access_token)).toBe(401);
    expect(await introspect(signed.tokens.access_token)).toEqual({ active: false });
    expect((await tokenRequest({ grant_type: 'client_credentials' }, signed.basic)).body.error).toBe(
      'invalid_client',
    );
  });

  it("the operator's deactivation keeps the organisation's last org-admin who can sign in, and refuses unknown ids", async () => {
    const org = await json(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Solo Ltd', domains: ['solo.test'], products: ['Platform'] },
    });
    const solo = await json(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: org.body.id,
        email: 'only@solo.test',
        firstName: 'Only',
        lastName: 'Admin',
        role: 'org-admin',
        password: PASSWORD,
      },
    });
    const last = await runCliJson(urls.usersAdmin!, ['user:deactivate', '--id', solo.body.id]);
    expect(last.code).not.toBe(0);
    expect(JSON.parse(last.stderr)).toMatchObject({ errorCode: 'LAST_ORG_ADMIN' });
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      const res = await json(`${urls.usersAdmin}/admin/users/${id}/deactivate`, { method: 'POST' });
      expect(res.res.status).toBe(404);
      expect(res.body.errorCode).toBe('USER_NOT_FOUND');
    }
  });
});
