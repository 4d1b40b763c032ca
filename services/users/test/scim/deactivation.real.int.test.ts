import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@acme/db';
import type { Database } from '@acme/db';
import { decodeJwt } from 'jose';
import { platformAuthorizeUrl } from '../auth-stack.ts';
import { Jar } from '../jar.ts';
import { boundSignIn, startRealStack, type RealStack } from '../real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The directory's deprovisioning end to end (issue 26), on the real identity service, user service
 * and authorization server as `npm start` runs them: a person signed in (identity session cookie,
 * access and refresh tokens, an API client of their own) is grouped by the directory (the next
 * token's `ext` follows), then set `active: false` the way Entra sends it. Within one request their
 * session (whoami), their refresh token and their API client stop working. DELETE then frees the
 * address for a new person while the old record stays for the audit trail.
 */

const APP_ORIGIN = 'http://localhost:4000';
const PASSWORD = 'Research-Demo-2026!';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM deactivation: sessions, refresh tokens and API clients stop at once', () => {
  let db: Database;
  const urls: Record<string, string> = {};
  let stack: RealStack | undefined;
  let organisationId = '';
  let adminToken = '';
  let scimToken = '';
  let scimTokenId = '';

  const json = (url: string, init: RequestInit & { json?: unknown } = {}) => new Jar().fetch(url, init);
  const scim = (method: string, path: string, body?: unknown) =>
    json(`${urls.users}/scim/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${scimToken}`, 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const consoleCall = (method: string, path: string, body?: unknown) =>
    json(`${urls.users}/console/organisations/${organisationId}${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}` },
      ...(body === undefined ? {} : { json: body }),
    });

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      identityEnv: (usersAdminUrl) => ({ USERS_ADMIN_URL: usersAdminUrl }),
    });
    db = stack.db;
    Object.assign(urls, stack.urls);
    const org = await json(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: { name: 'Deprovision Ltd', domains: ['deprov.test'], products: ['Platform'] },
    });
    organisationId = org.body.id;
    const admin = await newUser('it-admin@deprov.test', 'org-admin', ['research', 'quant']);
    adminToken = await tokenFor(admin.identityId);
    const created = await consoleCall('POST', '/scim/tokens', { name: 'Entra ID' });
    expect(created.res.status).toBe(201);
    scimToken = created.body.token;
    scimTokenId = created.body.id;
    const settings = await consoleCall('PUT', '/scim/settings', {
      groupMappings: [{ group: 'Quants', role: 'user', scopeGroups: ['quant'] }],
    });
    expect(settings.res.status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
  });

  async function newUser(email: string, role: string, scopeGroups: string[] = []) {
    const created = await json(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId,
        email,
        firstName: 'Test',
        lastName: 'Person',
        role,
        password: PASSWORD,
        scopeGroups,
      },
    });
    expect(created.res.status).toBe(201);
    return created.body as { id: string; email: string; identityId: string };
  }

  async function tokenFor(identityId: string): Promise<string> {
    const res = await fetch(`${urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subject: identityId, client_id: 'platform', session: { access_token: {} } }),
    });
    return ((await res.json()) as any).access_token;
  }

  const { tokenRequest, signIn } = boundSignIn(urls, APP_ORIGIN, PASSWORD);

  const whoami = (browser: Jar) =>
    browser.fetch(`${urls.identityPublic}/sessions/whoami`, { headers: { accept: 'application/json' } });

  it('grouping shows in the next token; active:false ends the session, the refresh and the API client within one request', async () => {
    const person = await newUser('leaver@deprov.test', 'member', ['quant']);
    const browser = new Jar(APP_ORIGIN);
    const tokens = await signIn(browser, person.email);
    expect((await whoami(browser)).res.status).toBe(200);

    // An API client the person made (they hold ManageAccessTokens and the scope group).
    const client = await json(`${urls.usersAdmin}/admin/api-clients`, {
      method: 'POST',
      json: { organisationId, name: 'leaver export', scopeGroups: ['quant'], actorEmail: person.email },
    });
    expect(client.res.status).toBe(201);
    const basic = `Basic ${Buffer.from(`${client.body.id}:${client.body.clientSecret}`).toString('base64')}`;
    expect((await tokenRequest({ grant_type: 'client_credentials' }, basic)).status).toBe(200);

    // The directory finds the person and puts them in "Quants": the next token carries its scope group.
    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${person.email}"`)}`);
    expect(found.body.Resources.map((u: any) => u.id)).toEqual([person.id]);
    await sql`update users set scope_groups = '[]' where id = ${person.id}`.execute(db.kysely);
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'platform',
    });
    expect((decodeJwt(refreshed.body.access_token).ext as any).scopeGroups).toEqual([]);
    const group = await scim('POST', '/Groups', { displayName: 'Quants', members: [{ value: person.id }] });
    expect(group.res.status).toBe(201);
    const grouped = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: refreshed.body.refresh_token,
      client_id: 'platform',
    });
    expect(grouped.status).toBe(200);
    expect((decodeJwt(grouped.body.access_token).ext as any).scopeGroups).toEqual(['quant']);

    // Entra's deactivation.
    const off = await scim('PATCH', `/Users/${person.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    expect(off.res.status).toBe(200);
    expect(off.body.active).toBe(false);

    expect((await whoami(browser)).res.status).toBe(401);
    const refresh = await tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: grouped.body.refresh_token,
      client_id: 'platform',
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    const clientToken = await tokenRequest({ grant_type: 'client_credentials' }, basic);
    expect(clientToken.status).toBe(401);
    const clients = await consoleCall('GET', '/api-clients');
    expect(clients.body.apiClients.find((c: any) => c.id === client.body.id).revokedAt).not.toBeNull();
    // A new password sign-in is refused too.
    const identity = await json(`${urls.identityAdmin}/admin/identities/${person.identityId}`);
    expect(identity.body.state).toBe('inactive');

    const events = await consoleCall('GET', `/events?subjectId=${person.id}`);
    const deactivated = events.body.events.find((e: any) => e.type === 'member.deactivated');
    expect(deactivated).toMatchObject({ actorKind: 'directory', actorId: scimTokenId });
    const revokedClient = await consoleCall('GET', '/events?type=api_client.revoked');
    expect(revokedClient.body.events[0]).toMatchObject({ actorKind: 'directory' });
  });

  /**
   * A person signed in and remembered by the authorization server (a new authorization skips the
   * login page), then deactivated by `deactivate`: the next authorization must ask for a login.
   */
  async function rememberedLoginAfter(email: string, deactivate: (id: string) => Promise<number>) {
    const person = await newUser(email, 'member');
    const browser = new Jar(APP_ORIGIN);
    await signIn(browser, person.email);
    const again = await browser.navigateToApp(platformAuthorizeUrl(urls.issuer!, APP_ORIGIN).url);
    expect(again.pathname).toBe('/account/callback');
    expect(again.searchParams.get('code')).toBeTruthy();

    expect(await deactivate(person.id)).toBe(200);

    // The authorization server still remembers the login; it must ask for a login again.
    const after = await browser.navigateToApp(platformAuthorizeUrl(urls.issuer!, APP_ORIGIN).url);
    expect(after.pathname).toBe('/account/login');
    expect(after.searchParams.get('code')).toBeNull();
    expect(after.searchParams.get('consent_challenge')).toBeNull();
    const challenge = after.searchParams.get('login_challenge')!;
    expect(challenge).toBeTruthy();
    // The login flow for that challenge shows the form, with the deactivated-account message.
    const flow = await browser.fetch(
      `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(challenge)}`,
      { headers: { accept: 'application/json' } },
    );
    expect(flow.res.status).toBe(200);
    expect(flow.body.ui.messages.map((m: any) => m.id)).toContain(4010092);
    // The password still opens nothing.
    const csrf = flow.body.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const submitted = await browser.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'password', identifier: person.email, password: PASSWORD, csrf_token: csrf },
    });
    expect(submitted.res.status).toBe(400);
    expect(submitted.body.redirect_browser_to).toBeUndefined();
  }

  it("abuse: a deactivated person's remembered login neither reaches the consent nor gets a code; the sign-in page says why", async () => {
    await rememberedLoginAfter('remembered@deprov.test', async (id) => {
      const off = await scim('PATCH', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      });
      return off.res.status;
    });
  });

  it('abuse: the same after the console deactivates the person', async () => {
    await rememberedLoginAfter('console-off@deprov.test', async (id) => {
      const off = await consoleCall('POST', `/members/${id}/deactivate`);
      return off.res.status === 204 ? 200 : off.res.status;
    });
  });

  it('DELETE keeps the record deactivated for the audit trail and frees the address for a new person', async () => {
    const person = await newUser('mover@deprov.test', 'member');
    const browser = new Jar(APP_ORIGIN);
    await signIn(browser, person.email);
    const deleted = await scim('DELETE', `/Users/${person.id}`);
    expect(deleted.body).toBeUndefined();
    expect(deleted.res.status).toBe(204);
    expect((await whoami(browser)).res.status).toBe(401);
    expect((await scim('GET', `/Users/${person.id}`)).res.status).toBe(404);

    const old = await consoleCall('GET', `/members/${person.id}`);
    expect(old.res.status).toBe(200);
    expect(old.body).toMatchObject({ status: 'deactivated' });
    // The console can not bring the deleted record back; the directory provisions the person again.
    const reactivate = await consoleCall('POST', `/members/${person.id}/reactivate`);
    expect([reactivate.res.status, reactivate.body.errorCode]).toEqual([409, 'MANAGED_BY_DIRECTORY']);
    const kept = await sql<{ user_name: string; deleted_at: Date | null }>`
      select user_name, deleted_at from scim_users where user_id = ${person.id}`.execute(db.kysely);
    expect(kept.rows[0]).toMatchObject({ user_name: 'mover@deprov.test', deleted_at: expect.any(Date) });

    const again = await scim('POST', '/Users', {
      userName: 'mover@deprov.test',
      name: { givenName: 'New', familyName: 'Mover' },
    });
    expect(again.res.status).toBe(201);
    expect(again.body.id).not.toBe(person.id);
    expect(again.body.active).toBe(true);
  });

  it('reactivation: active:true gives the person their account back (a new sign-in works)', async () => {
    const person = await newUser('returner@deprov.test', 'member');
    const off = await scim('PATCH', `/Users/${person.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    expect(off.body.active).toBe(false);
    const on = await scim('PATCH', `/Users/${person.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: true }],
    });
    expect(on.body.active).toBe(true);
    const tokens = await signIn(new Jar(APP_ORIGIN), person.email);
    expect(tokens.access_token).toBeTruthy();
  });
});
