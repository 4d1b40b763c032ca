import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, sql, typed } from '@acme/db';
import type { Database } from '@acme/db';
import { start as startAgent } from '@acme/agent';
import {
  demoDirectory,
  DEMO_CONTOSO_PASSWORD,
  DEMO_CONTOSO_TENANT_ID,
  DEMO_FABRIKAM_PASSWORD,
  DEMO_FABRIKAM_TENANT_ID,
  DEMO_FOREIGN_CLIENT_ID,
  DEMO_FOREIGN_REDIRECT_ORIGIN,
  DEMO_M365_CLIENT_ID,
  DEMO_MARKETPLACE_CLIENT_SECRET,
  DEMO_M365_CLIENT_SECRET,
  DEMO_NORTHWIND_PASSWORD,
  DEMO_PUBLISHER_TENANT_ID,
  MARKETPLACE_APP_ID,
  startMicrosoftStandIns,
  TEAMS_DESKTOP_CLIENT_ID,
  type MicrosoftStandIns,
} from '@acme/dev';
import { freePort } from '@acme/test-kit/free-port';
import { runCli } from '../src/cli-commands.ts';
import { writeTrustedNetworks } from '../src/access/networks.ts';
import type { UsersDb } from '../src/db-types.ts';
import { start as startUsers } from '../src/index.ts';
import { startAuthStack } from './auth-stack.ts';

/**
 * Microsoft 365 sign-in and marketplace activation against the Entra, Graph and marketplace
 * stand-ins, with our real authorization server, identity service and agent service, in process
 * on one database.
 */

const APP = 'http://localhost:4001';
const REDIRECT = `${APP}/account/redirect.html`;
const TAILSPIN_TENANT_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TAILSPIN_PASSWORD = 'Tailspin-Test-2026!';
const WINGTIP_TENANT_ID = '6b5a4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d';

let db: Database;
let ms: MicrosoftStandIns;
let users: string;
let usersAdmin: string;
let issuer: string;
let oauth2Admin: string;
let identityAdmin: string;
let agentAdmin: string;
let contosoId: string;
/** Added to the marketplace's clock, to let its purchase tokens expire. */
let marketplaceSkewMs = 0;
/** Kim's purchase (Tailspin): its landing-page token, replayed by later tests. */
let tailspinPurchase: { token: string; subscriptionId: string } | undefined;
const closers: (() => Promise<void>)[] = [];

async function json(url: string, init: RequestInit & { json?: unknown } = {}) {
  const res = await fetch(url, {
    ...init,
    headers: {
      ...(init.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.headers as Record<string, string>),
    },
    body: init.json === undefined ? init.body : JSON.stringify(init.json),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as Record<string, unknown> };
}

/** What MSAL gets from a popup sign-in: the ID token and the directory (Graph) token. */
async function msalSignIn(
  email: string,
  password: string,
  app: { clientId: string; redirect: string; scope: string } = {
    clientId: DEMO_M365_CLIENT_ID,
    redirect: REDIRECT,
    scope: 'email User.Read Organization.Read.All openid profile offline_access',
  },
): Promise<{ idToken: string; graphToken: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    client_id: app.clientId,
    response_type: 'code',
    redirect_uri: app.redirect,
    scope: app.scope,
    state: 's',
    nonce: 'n',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const page = await (await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize?${query}`)).text();
  const ctx = /name="ctx" value="([^"]+)"/.exec(page)![1]!;
  const res = await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize`, {
    method: 'POST',
    body: new URLSearchParams({ ctx, email, password, action: 'signin' }),
    redirect: 'manual',
  });
  const code = new URLSearchParams(res.headers.get('location')!.split('#')[1]).get('code')!;
  const tokens = (await (
    await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: app.clientId,
        grant_type: 'authorization_code',
        code,
        redirect_uri: app.redirect,
        code_verifier: verifier,
      }),
    })
  ).json()) as { id_token: string; access_token: string };
  return { idToken: tokens.id_token, graphToken: tokens.access_token };
}

const login = (bearer: string | undefined, body: unknown = {}) =>
  json(`${users}/m365/login`, {
    method: 'POST',
    headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    json: body,
  });

const activate = (bearer: string, body: unknown) =>
  json(`${users}/m365/marketplace/activate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
    json: body,
  });

async function organisationOfTenant(tenantId: string) {
  const list = await json(`${usersAdmin}/admin/organisations`);
  return (
    list.body.organisations as {
      id: string;
      m365TenantIds: string[];
      subscriptionStatus: string;
      domains: string[];
    }[]
  ).filter((o) => o.m365TenantIds.includes(tenantId));
}

beforeAll(async () => {
  db = await createTestDb();
  const directory = demoDirectory([APP]);
  directory.tenants.push({
    tenantId: TAILSPIN_TENANT_ID,
    displayName: 'Tailspin Toys',
    domains: [
      { name: 'tailspin.test', isDefault: true },
      { name: 'tailspintoys.test', isDefault: false },
    ],
    adminConsent: true,
    users: [
      {
        objectId: '4f3d5e6a-7b8c-4d9e-8f0a-000000000001',
        email: 'kim@tailspin.test',
        displayName: 'Kim Akers',
        givenName: 'Kim',
        surname: 'Akers',
        password: TAILSPIN_PASSWORD,
        azureRoles: ['Owner'],
      },
      {
        // A colleague of the purchaser: no Azure role, never bought anything.
        objectId: '4f3d5e6a-7b8c-4d9e-8f0a-000000000002',
        email: 'pat@tailspin.test',
        displayName: 'Pat Colleague',
        givenName: 'Pat',
        surname: 'Colleague',
        password: TAILSPIN_PASSWORD,
      },
    ],
  });
  directory.tenants.push({
    tenantId: WINGTIP_TENANT_ID,
    displayName: 'Wingtip',
    domains: [{ name: 'wingtip.test', isDefault: true }],
    adminConsent: true,
    users: [
      {
        objectId: '5a4b6c7d-8e9f-4a0b-8c1d-000000000001',
        email: 'sam@wingtip.test',
        displayName: 'Sam Owner',
        givenName: 'Sam',
        surname: 'Owner',
        password: TAILSPIN_PASSWORD,
        azureRoles: ['Owner'],
      },
      {
        objectId: '5a4b6c7d-8e9f-4a0b-8c1d-000000000002',
        email: 'lou@wingtip.test',
        displayName: 'Lou Admin',
        givenName: 'Lou',
        surname: 'Admin',
        password: TAILSPIN_PASSWORD,
      },
    ],
  });
  const contosoTenant = directory.tenants.find((t) => t.tenantId === DEMO_CONTOSO_TENANT_ID)!;
  for (const [n, first] of [
    ['3', 'Adele'],
    ['4', 'Grady'],
    ['5', 'Nestor'],
  ] as const) {
    contosoTenant.users.push({
      objectId: `1c0a2b3d-4e5f-4a6b-8c7d-00000000000${n}`,
      email: `${first.toLowerCase()}@contoso.test`,
      displayName: `${first} Vance`,
      givenName: first,
      surname: 'Vance',
      password: DEMO_CONTOSO_PASSWORD,
    });
  }
  ms = await startMicrosoftStandIns({
    entraPort: 0,
    graphPort: 0,
    marketplacePort: 0,
    directory,
    marketplace: { clock: { now: () => new Date(Date.now() + marketplaceSkewMs) } },
  });
  closers.push(ms.close);
  const stack = await startAuthStack(db, closers, { appOrigin: APP });
  issuer = stack.issuer;
  oauth2Admin = stack.oauth2Admin;
  identityAdmin = stack.identityAdmin;
  const agentPort = await freePort();
  const agent = await startAgent({
    db,
    logger: false,
    env: {
      AGENT_PUBLIC_PORT: String(agentPort),
      AGENT_ADMIN_PORT: '0',
      AGENT_MANAGEMENT_PORT: '0',
      M365_AUTHORITY_URL: ms.urls.entra,
      M365_CLIENT_ID: DEMO_M365_CLIENT_ID,
    },
  });
  closers.push(agent.close);
  agentAdmin = agent.urls.admin!;
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const started = await startUsers({
    db,
    logger: false,
    env: {
      USERS_PUBLIC_PORT: String(publicPort),
      USERS_ADMIN_PORT: String(adminPort),
      USERS_MANAGEMENT_PORT: '0',
      IDENTITY_ADMIN_URL: stack.identityAdmin,
      IDENTITY_PUBLIC_URL: stack.identityPublic,
      OAUTH2_ADMIN_URL: stack.oauth2Admin,
      M365_AUTHORITY_URL: ms.urls.entra,
      GRAPH_URL: ms.urls.graph,
      MARKETPLACE_API_URL: ms.urls.marketplace,
      M365_OFFER_URL: `${ms.urls.marketplace}/`,
      AGENT_PUBLIC_URL: agent.urls.public!,
    },
  });
  closers.push(started.close);
  users = started.urls.public!;
  usersAdmin = started.urls.admin!;
  ms.marketplace.setWebhookUrl(`${users}/m365/marketplace/webhook`);

  const contoso = await json(`${usersAdmin}/admin/organisations`, {
    method: 'POST',
    json: {
      name: 'Contoso',
      domains: ['contoso.test'],
      products: ['MAGIC'],
      subscriptionStatus: 'subscribed',
      m365: true,
      m365TenantIds: [DEMO_CONTOSO_TENANT_ID],
    },
  });
  expect(contoso.status).toBe(201);
  contosoId = String(contoso.body.id);
  const megan = await json(`${usersAdmin}/admin/users`, {
    method: 'POST',
    json: {
      organisationId: contoso.body.id,
      email: 'megan@contoso.test',
      firstName: 'Megan',
      lastName: 'Bowen',
      role: 'member',
      scopeGroups: ['research'],
    },
  });
  expect(megan.status).toBe(201);
  const fabrikam = await json(`${usersAdmin}/admin/organisations`, {
    method: 'POST',
    json: {
      name: 'Fabrikam',
      domains: ['fabrikam.test'],
      products: ['MAGIC'],
      subscriptionStatus: 'not_subscribed',
      m365: true,
      m365TenantIds: [DEMO_FABRIKAM_TENANT_ID],
    },
  });
  expect(fabrikam.status).toBe(201);
}, 60_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await db?.close();
});

describe('POST /m365/login', () => {
  it('signs Megan in with her ID token and Graph token: our token, authenticationMode m365', async () => {
    const { idToken, graphToken } = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    const res = await login(idToken, { graphAccessToken: graphToken });
    expect(res.status).toBe(200);
    expect(res.body.expiresIn).toBe(600);
    const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(String(res.body.accessToken), jwks, { issuer, typ: 'at+jwt' });
    const megan = (await json(`${usersAdmin}/admin/users`)).body.users as {
      email: string;
      identityId: string;
    }[];
    expect(payload).toMatchObject({
      sub: megan.find((u) => u.email === 'megan@contoso.test')!.identityId,
      client_id: 'magic',
      aud: ['urn:acme:api'],
      ext: {
        user: { authenticationMode: 'm365', email: 'megan@contoso.test', name: 'Megan Bowen' },
        products: ['MAGIC'],
        scopeGroups: ['research'],
        subscriptionStatus: 'subscribed',
      },
    });
    const introspected = await fetch(`${oauth2Admin}/admin/oauth2/introspect`, {
      method: 'POST',
      body: new URLSearchParams({ token: String(res.body.accessToken) }),
    });
    expect(((await introspected.json()) as { active: boolean }).active).toBe(true);
  });

  it('signs Megan in from Teams: her Teams token alone, Graph on-behalf-of', async () => {
    const teams = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    const res = await login(teams, { graphAccessToken: '' });
    expect(res.status).toBe(200);
    expect(typeof res.body.accessToken).toBe('string');
  });

  it('Teams SSO tokens of the desktop/mobile and the web clients are both accepted', async () => {
    const web = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    expect(decodeJwt(web).azp).toBe('5e3ce6c0-2b1f-4285-8d4b-75ee78787346');
    const desktop = await ms.entra.sign({ ...decodeJwt(web), azp: TEAMS_DESKTOP_CLIENT_ID });
    for (const token of [web, desktop]) {
      expect((await login(token, {})).status).toBe(200);
    }
  });

  it('a token for our API obtained by a third-party application (foreign azp) is refused', async () => {
    // The third-party app signs Megan in and asks Entra for a token for our API: aud is ours.
    const foreign = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD, {
      clientId: DEMO_FOREIGN_CLIENT_ID,
      redirect: `${DEMO_FOREIGN_REDIRECT_ORIGIN}/callback`,
      scope: `api://localhost/${DEMO_M365_CLIENT_ID}/access_as_user openid profile`,
    });
    const apiToken = foreign.graphToken;
    expect(decodeJwt(apiToken)).toMatchObject({ aud: DEMO_M365_CLIENT_ID, azp: DEMO_FOREIGN_CLIENT_ID });
    const megan = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    for (const graphAccessToken of [megan.graphToken, '']) {
      const res = await login(apiToken, { graphAccessToken });
      expect(res).toMatchObject({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
    }
    const { token } = ms.marketplace.purchase('megan@contoso.test');
    const activation = await activate(apiToken, { token, graphAccessToken: megan.graphToken });
    expect(activation).toMatchObject({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
    // The v1 claim name (appid) is checked the same way.
    const v1 = await ms.entra.sign({ ...decodeJwt(apiToken), azp: undefined, appid: DEMO_FOREIGN_CLIENT_ID });
    expect((await login(v1, { graphAccessToken: megan.graphToken })).status).toBe(401);
  });

  it('a revoked invitation or an operator’s deactivation gets no m365 token (ACCOUNT_INACTIVE)', async () => {
    // Adele was invited, then the invitation was revoked (her identity is deactivated).
    const invitation = await json(`${usersAdmin}/admin/invitations`, {
      method: 'POST',
      json: {
        organisationId: contosoId,
        email: 'adele@contoso.test',
        firstName: 'Adele',
        lastName: 'Vance',
        role: 'member',
        scopeGroups: [],
      },
    });
    expect(invitation.status).toBe(201);
    const revoked = await json(`${usersAdmin}/admin/invitations/${String(invitation.body.id)}/revoke`, {
      method: 'POST',
    });
    expect(revoked.status).toBe(200);
    const adele = await msalSignIn('adele@contoso.test', DEMO_CONTOSO_PASSWORD);
    const refused = await login(adele.idToken, { graphAccessToken: adele.graphToken });
    expect(refused).toMatchObject({ status: 403, body: { errorCode: 'ACCOUNT_INACTIVE' } });
    expect(refused.body).not.toHaveProperty('accessToken');

    // Grady is a user; the operator deactivates his identity, then reactivates it.
    const created = await json(`${usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: contosoId,
        email: 'grady@contoso.test',
        firstName: 'Grady',
        lastName: 'Vance',
        role: 'member',
        scopeGroups: [],
      },
    });
    expect(created.status).toBe(201);
    const identityId = String(created.body.identityId);
    const setState = async (state: string) => {
      const res = await fetch(`${identityAdmin}/admin/identities/${identityId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ op: 'replace', path: '/state', value: state }]),
      });
      expect(res.status).toBe(200);
    };
    const grady = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'grady@contoso.test');
    expect((await login(grady, {})).status).toBe(200);
    await setState('inactive');
    try {
      expect(await login(grady, {})).toMatchObject({ status: 403, body: { errorCode: 'ACCOUNT_INACTIVE' } });
    } finally {
      await setState('active');
    }
    expect((await login(grady, {})).status).toBe(200);
  });

  it('an identity that belongs to another user gets no m365 token (USER_NOT_LINKED)', async () => {
    const grady = (
      (await json(`${usersAdmin}/admin/users`)).body.users as {
        id: string;
        email: string;
        identityId: string;
      }[]
    ).find((u) => u.email === 'grady@contoso.test')!;
    const patch = (value: string) =>
      fetch(`${identityAdmin}/admin/identities/${grady.identityId}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify([{ op: 'replace', path: '/traits/userServiceID', value }]),
      });
    const token = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'grady@contoso.test');
    expect((await patch(randomUUID())).status).toBe(200);
    try {
      expect(await login(token, {})).toMatchObject({ status: 403, body: { errorCode: 'USER_NOT_LINKED' } });
    } finally {
      expect((await patch(grady.id)).status).toBe(200);
    }
    expect((await login(token, {})).status).toBe(200);
  });

  it('Diego (in Entra, not a user): UnauthorisedUserException, and his request is recorded', async () => {
    const teams = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'diego@contoso.test');
    const res = await login(teams, {});
    expect(res.status).toBe(403);
    expect(res.body.errorCode).toBe('UnauthorisedUserException');
    const recorded = await sql<{ email: string; name: string }>`
      select email, name from agent_unregistered_user_requests where email = 'diego@contoso.test'`.execute(
      db.kysely,
    );
    expect(recorded.rows).toEqual([{ email: 'diego@contoso.test', name: 'Diego Siciliani' }]);

    // `npm run admin -- requests:list` shows it.
    const out: string[] = [];
    const code = await runCli(['requests:list'], {
      env: { AGENT_ADMIN_URL: agentAdmin },
      out: (t) => out.push(t),
      err: () => undefined,
    });
    expect(code).toBe(0);
    const listed = JSON.parse(out.join('\n')) as { requests: { email: string; name: string }[] };
    expect(listed.requests).toContainEqual(
      expect.objectContaining({ email: 'diego@contoso.test', name: 'Diego Siciliani' }),
    );
  });

  it('a Fabrikam user: UserNotSubscribedException with the offer set-up link', async () => {
    const { idToken, graphToken } = await msalSignIn('alex@fabrikam.test', DEMO_FABRIKAM_PASSWORD);
    const res = await login(idToken, { graphAccessToken: graphToken });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      errorCode: 'UserNotSubscribedException',
      subscriptionSetupUrl: `${ms.urls.marketplace}/`,
    });
  });

  it('a tenant without admin consent: UserNotGrantedAccessException (browser and Teams)', async () => {
    const { idToken, graphToken } = await msalSignIn('lee@northwind.test', DEMO_NORTHWIND_PASSWORD);
    const browser = await login(idToken, { graphAccessToken: graphToken });
    expect(browser).toMatchObject({ status: 403, body: { errorCode: 'UserNotGrantedAccessException' } });
    const teams = await login(await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'lee@northwind.test'));
    expect(teams).toMatchObject({ status: 403, body: { errorCode: 'UserNotGrantedAccessException' } });
  });

  it('refuses a missing, expired, forged or foreign-audience token, and another user’s Graph token', async () => {
    const { idToken, graphToken } = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    const diego = await msalSignIn('diego@contoso.test', DEMO_CONTOSO_PASSWORD);
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      ver: '2.0',
      iss: `${ms.urls.entra}/${DEMO_CONTOSO_TENANT_ID}/v2.0`,
      aud: DEMO_M365_CLIENT_ID,
      tid: DEMO_CONTOSO_TENANT_ID,
      oid: '1c0a2b3d-4e5f-4a6b-8c7d-000000000001',
      preferred_username: 'megan@contoso.test',
      iat: now - 7200,
      nbf: now - 7200,
      exp: now - 3600,
    };
    const expired = await ms.entra.sign(claims);
    const otherAudience = await ms.entra.sign({
      ...claims,
      aud: randomUUID(),
      iat: now,
      nbf: now,
      exp: now + 600,
    });
    const otherIssuer = await ms.entra.sign({
      ...claims,
      iss: `${ms.urls.entra}/${DEMO_FABRIKAM_TENANT_ID}/v2.0`,
      iat: now,
      nbf: now,
      exp: now + 600,
    });
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const kid = ms.entra.publicJwks.keys[0]!.kid!;
    expect((await exportJWK(publicKey)).n).not.toBe(ms.entra.publicJwks.keys[0]!.n);
    const forged = await new SignJWT({ ...claims, iat: now, nbf: now, exp: now + 600 })
      .setProtectedHeader({ alg: 'RS256', kid })
      .sign(privateKey);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, exp: now + 600 })).toString('base64url')}.`;

    for (const bearer of [
      undefined,
      'not-a-jwt',
      expired,
      otherAudience,
      otherIssuer,
      forged,
      unsigned,
      graphToken,
    ]) {
      const res = await login(bearer, { graphAccessToken: graphToken });
      expect(res.status, String(bearer).slice(0, 20)).toBe(401);
      expect(res.body.errorCode).toBe('UNAUTHENTICATED');
    }
    const mixed = await login(idToken, { graphAccessToken: diego.graphToken });
    expect(mixed).toMatchObject({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
  });

  it('answers bad bodies with INVALID_REQUEST, never a 500', async () => {
    const { idToken } = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    for (const body of [{ graphAccessToken: 42 }, { graphAccessToken: 'x', extra: 1 }, []]) {
      const res = await login(idToken, body);
      expect(res).toMatchObject({ status: 400, body: { errorCode: 'INVALID_REQUEST' } });
    }
    const raw = await fetch(`${users}/m365/login`, {
      method: 'POST',
      headers: { authorization: `Bearer ${idToken}`, 'content-type': 'application/json' },
      body: '{"graphAccessToken":',
    });
    expect(raw.status).toBe(400);
    const large = await fetch(`${users}/m365/login`, {
      method: 'POST',
      headers: { authorization: `Bearer ${idToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ graphAccessToken: 'x'.repeat(20_000) }),
    });
    expect(large.status).toBe(413);
  });

  it("trusted networks: an m365 sign-in from outside the organisation's ranges gets NETWORK_NOT_TRUSTED and no token; inside it works", async () => {
    const [contoso] = await organisationOfTenant(DEMO_CONTOSO_TENANT_ID);
    const setRanges = (ranges: string[]) =>
      writeTrustedNetworks(typed<UsersDb>(db), contoso!.id, ranges, randomUUID(), new Date());
    const teams = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    try {
      // This service trusts no proxy: the client is the loopback peer.
      await setRanges(['203.0.113.0/24', '2001:db8::/32']);
      const refused = await login(teams, { graphAccessToken: '' });
      expect(refused).toMatchObject({ status: 403, body: { errorCode: 'NETWORK_NOT_TRUSTED' } });
      expect(refused.body.accessToken).toBeUndefined();
      await setRanges(['127.0.0.0/8', '::1/128']);
      expect((await login(teams, { graphAccessToken: '' })).status).toBe(200);
    } finally {
      await setRanges([]);
    }
  });
});

describe('marketplace activation and webhooks', () => {
  async function marketplaceAppToken(): Promise<string> {
    const res = await fetch(`${ms.urls.entra}/${DEMO_PUBLISHER_TENANT_ID}/oauth2/v2.0/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: MARKETPLACE_APP_ID,
        client_secret: DEMO_MARKETPLACE_CLIENT_SECRET,
        scope: `${DEMO_M365_CLIENT_ID}/.default`,
      }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

  it('Fabrikam: activation subscribes the organisation, the purchaser becomes org-admin, replay is harmless', async () => {
    const { token, subscription } = ms.marketplace.purchase('alex@fabrikam.test');
    const alex = await msalSignIn('alex@fabrikam.test', DEMO_FABRIKAM_PASSWORD);
    const first = await activate(alex.idToken, { token, graphAccessToken: alex.graphToken });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      subscriptionId: subscription.id,
      planId: 'magic-team',
      created: false,
    });
    expect(ms.marketplace.subscriptions.get(subscription.id)!.saasSubscriptionStatus).toBe('Subscribed');
    const [org] = await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID);
    expect(org!.subscriptionStatus).toBe('subscribed');
    const people = (await json(`${usersAdmin}/admin/users?organisationId=${org!.id}`)).body.users as {
      email: string;
      role: string;
    }[];
    expect(people).toEqual([expect.objectContaining({ email: 'alex@fabrikam.test', role: 'org-admin' })]);

    // A replay: the organisation is subscribed, so the "already subscribed" view; nothing runs again.
    const replay = await activate(alex.idToken, { token, graphAccessToken: alex.graphToken });
    expect(replay).toMatchObject({
      status: 409,
      body: { errorCode: 'OrganisationAlreadySubscribedException' },
    });
    expect(await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID)).toHaveLength(1);

    const signedIn = await login(alex.idToken, { graphAccessToken: alex.graphToken });
    expect(signedIn.status).toBe(200);

    // A second purchase for an organisation that already has a subscription.
    const second = ms.marketplace.purchase('alex@fabrikam.test');
    const again = await activate(alex.idToken, { token: second.token, graphAccessToken: alex.graphToken });
    expect(again).toMatchObject({
      status: 409,
      body: { errorCode: 'OrganisationAlreadySubscribedException' },
    });
  });

  it('a colleague replaying the purchaser’s landing-page token is refused and gets no org-admin role', async () => {
    const { token, subscription } = ms.marketplace.purchase('kim@tailspin.test');
    tailspinPurchase = { token, subscriptionId: subscription.id };
    const pat = await msalSignIn('pat@tailspin.test', TAILSPIN_PASSWORD);
    const stolen = await activate(pat.idToken, { token, graphAccessToken: pat.graphToken });
    expect(stolen).toMatchObject({ status: 403, body: { errorCode: 'MarketplaceNotPurchaserException' } });
    expect(await organisationOfTenant(TAILSPIN_TENANT_ID)).toHaveLength(0);
    expect(ms.marketplace.subscriptions.get(subscription.id)!.saasSubscriptionStatus).toBe(
      'PendingFulfillmentStart',
    );

    // Kim, the purchaser: a new tenant's organisation, from Graph's verified domains; she is org-admin.
    const kim = await msalSignIn('kim@tailspin.test', TAILSPIN_PASSWORD);
    const res = await activate(kim.idToken, { token, graphAccessToken: kim.graphToken });
    expect(res).toMatchObject({ status: 200, body: { created: true } });
    const [org] = await organisationOfTenant(TAILSPIN_TENANT_ID);
    expect(org).toMatchObject({
      domains: ['tailspin.test', 'tailspintoys.test'],
      subscriptionStatus: 'subscribed',
    });
    const people = (await json(`${usersAdmin}/admin/users?organisationId=${org!.id}`)).body.users;
    expect(people).toEqual([expect.objectContaining({ email: 'kim@tailspin.test', role: 'org-admin' })]);

    // Pat again, with the organisation in place: still nothing.
    expect((await activate(pat.idToken, { token, graphAccessToken: pat.graphToken })).body.errorCode).toBe(
      'MarketplaceNotPurchaserException',
    );
    expect((await json(`${usersAdmin}/admin/users?organisationId=${org!.id}`)).body.users).toHaveLength(1);
    expect(await organisationOfTenant(TAILSPIN_TENANT_ID)).toHaveLength(1);
  });

  it('a purchaser whose organisation already has an org-admin gets no role there', async () => {
    const wingtip = await json(`${usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: {
        name: 'Wingtip',
        domains: ['wingtip.test'],
        products: ['MAGIC'],
        subscriptionStatus: 'not_subscribed',
        m365: true,
        m365TenantIds: [WINGTIP_TENANT_ID],
      },
    });
    expect(wingtip.status).toBe(201);
    const lou = await json(`${usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: wingtip.body.id,
        email: 'lou@wingtip.test',
        firstName: 'Lou',
        lastName: 'Admin',
        role: 'org-admin',
        scopeGroups: [],
      },
    });
    expect(lou.status).toBe(201);
    const { token } = ms.marketplace.purchase('sam@wingtip.test');
    const sam = await msalSignIn('sam@wingtip.test', TAILSPIN_PASSWORD);
    const res = await activate(sam.idToken, { token, graphAccessToken: sam.graphToken });
    expect(res).toMatchObject({ status: 200, body: { created: false } });
    const people = (await json(`${usersAdmin}/admin/users?organisationId=${String(wingtip.body.id)}`)).body
      .users as { email: string; role: string }[];
    expect(people).toEqual([expect.objectContaining({ email: 'lou@wingtip.test', role: 'org-admin' })]);
  });

  it('a replayed purchase token does not re-subscribe what the marketplace suspended or unsubscribed', async () => {
    // Kim's landing-page link, as her browser history still has it.
    const { token, subscriptionId } = tailspinPurchase!;
    const kim = await msalSignIn('kim@tailspin.test', TAILSPIN_PASSWORD);
    const status = async () => (await organisationOfTenant(TAILSPIN_TENANT_ID))[0]!.subscriptionStatus;

    for (const action of ['Suspend', 'Unsubscribe'] as const) {
      expect((await ms.marketplace.sendWebhook(subscriptionId, action)).status).toBe(200);
      expect(await status()).toBe('not_subscribed');
      const replay = await activate(kim.idToken, { token, graphAccessToken: kim.graphToken });
      expect(replay).toMatchObject({
        status: 409,
        body: { errorCode: 'MarketplaceSubscriptionInactiveException' },
      });
      expect(await status()).toBe('not_subscribed');
      expect(ms.marketplace.subscriptions.get(subscriptionId)!.saasSubscriptionStatus).toBe(
        action === 'Suspend' ? 'Suspended' : 'Unsubscribed',
      );
      expect((await ms.marketplace.sendWebhook(subscriptionId, 'Reinstate')).status).toBe(200);
      expect(await status()).toBe('subscribed');
    }
  });

  it('refuses invalid, expired and other tenants’ purchase tokens', async () => {
    const megan = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    const invalid = await activate(megan.idToken, {
      token: 'bogus+token==',
      graphAccessToken: megan.graphToken,
    });
    expect(invalid).toMatchObject({ status: 400, body: { errorCode: 'InvalidMarketplaceTokenException' } });

    const fabrikamPurchase = ms.marketplace.purchase('alex@fabrikam.test');
    const foreign = await activate(megan.idToken, {
      token: fabrikamPurchase.token,
      graphAccessToken: megan.graphToken,
    });
    expect(foreign).toMatchObject({ status: 403, body: { errorCode: 'MarketplaceTenantMismatchException' } });

    const { token } = ms.marketplace.purchase('megan@contoso.test');
    marketplaceSkewMs = 2 * 3600_000;
    try {
      const expired = await activate(megan.idToken, { token, graphAccessToken: megan.graphToken });
      expect(expired).toMatchObject({ status: 400, body: { errorCode: 'InvalidMarketplaceTokenException' } });
    } finally {
      marketplaceSkewMs = 0;
    }
    const noBearer = await json(`${users}/m365/marketplace/activate`, { method: 'POST', json: { token } });
    expect(noBearer).toMatchObject({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
    const noToken = await activate(megan.idToken, { graphAccessToken: megan.graphToken });
    expect(noToken).toMatchObject({ status: 400, body: { errorCode: 'INVALID_REQUEST' } });
  });

  it('webhooks: Unsubscribe ends the subscription (sign-in then not subscribed), Reinstate restores it', async () => {
    const { subscription } = [...ms.marketplace.subscriptions.values()]
      .filter(
        (s) =>
          s.beneficiary.tenantId === DEMO_FABRIKAM_TENANT_ID && s.saasSubscriptionStatus === 'Subscribed',
      )
      .map((s) => ({ subscription: s }))[0]!;
    const alex = await msalSignIn('alex@fabrikam.test', DEMO_FABRIKAM_PASSWORD);

    const unsubscribed = await ms.marketplace.sendWebhook(subscription.id, 'Unsubscribe');
    expect(unsubscribed.status).toBe(200);
    const refused = await login(alex.idToken, { graphAccessToken: alex.graphToken });
    expect(refused.body.errorCode).toBe('UserNotSubscribedException');

    expect((await ms.marketplace.sendWebhook(subscription.id, 'Reinstate')).status).toBe(200);
    expect((await login(alex.idToken, { graphAccessToken: alex.graphToken })).status).toBe(200);

    // The same event twice is applied once.
    const sent = await ms.marketplace.sendWebhook(subscription.id, 'Suspend');
    expect(JSON.parse(sent.body)).toEqual({ applied: true });
    const bearer = await marketplaceAppToken();
    const again = await json(`${users}/m365/marketplace/webhook`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}` },
      json: sent.payload,
    });
    expect(again).toMatchObject({ status: 200, body: { applied: false } });
    expect((await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID))[0]!.subscriptionStatus).toBe(
      'not_subscribed',
    );
  });

  it('a webhook the marketplace did not send (unknown operation, other action) changes nothing', async () => {
    const subscription = [...ms.marketplace.subscriptions.values()].find(
      (s) => s.beneficiary.tenantId === DEMO_FABRIKAM_TENANT_ID && s.saasSubscriptionStatus === 'Suspended',
    )!;
    const suspend = [...ms.marketplace.operations.values()].find(
      (o) => o.subscriptionId === subscription.id && o.action === 'Suspend',
    )!;
    const otherOperation = [...ms.marketplace.operations.values()].find(
      (o) => o.subscriptionId !== subscription.id,
    )!;
    const bearer = await marketplaceAppToken();
    const forged = [
      { id: randomUUID(), subscriptionId: subscription.id, action: 'Reinstate' },
      { id: suspend.id, subscriptionId: subscription.id, action: 'Reinstate' },
      { id: otherOperation.id, subscriptionId: subscription.id, action: otherOperation.action },
    ];
    for (const event of forged) {
      const res = await json(`${users}/m365/marketplace/webhook`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}` },
        json: { ...event, planId: 'magic-team', quantity: 1, status: 'Succeeded' },
      });
      expect(res).toMatchObject({ status: 404, body: { errorCode: 'MARKETPLACE_OPERATION_NOT_FOUND' } });
      expect((await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID))[0]!.subscriptionStatus).toBe(
        'not_subscribed',
      );
    }
  });

  it('m365:admin-review prints the org-admin grants the repair migration listed', async () => {
    const [org] = await organisationOfTenant(TAILSPIN_TENANT_ID);
    const userId = randomUUID();
    await sql`insert into m365_org_admin_review (user_id, organisation_id, email, purchaser_emails)
      values (${userId}, ${org!.id}, 'pat@tailspin.test', '["kim@tailspin.test"]'::jsonb)`.execute(db.kysely);
    const out: string[] = [];
    const code = await runCli(['m365:admin-review'], {
      env: { USERS_ADMIN_URL: usersAdmin },
      out: (t) => out.push(t),
      err: () => undefined,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('\n'))).toEqual({
      grants: [
        {
          userId,
          organisationId: org!.id,
          email: 'pat@tailspin.test',
          purchaserEmails: ['kim@tailspin.test'],
          foundAt: expect.any(String),
        },
      ],
    });
  });

  it('webhooks with a bad token are refused and change nothing', async () => {
    const [before] = await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID);
    const subscriptionId = [...ms.marketplace.subscriptions.values()].find(
      (s) => s.beneficiary.tenantId === DEMO_FABRIKAM_TENANT_ID,
    )!.id;
    const ownAppToken = (
      (await (
        await fetch(`${ms.urls.entra}/${DEMO_PUBLISHER_TENANT_ID}/oauth2/v2.0/token`, {
          method: 'POST',
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: DEMO_M365_CLIENT_ID,
            client_secret: DEMO_M365_CLIENT_SECRET,
            scope: `${DEMO_M365_CLIENT_ID}/.default`,
          }),
        })
      ).json()) as { access_token: string }
    ).access_token;
    const { idToken } = await msalSignIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    for (const bearer of [undefined, 'garbage', idToken, ownAppToken]) {
      const res = await json(`${users}/m365/marketplace/webhook`, {
        method: 'POST',
        headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
        json: { id: randomUUID(), subscriptionId, action: 'Reinstate' },
      });
      expect(res).toMatchObject({ status: 401, body: { errorCode: 'UNAUTHENTICATED' } });
    }
    const [after] = await organisationOfTenant(DEMO_FABRIKAM_TENANT_ID);
    expect(after!.subscriptionStatus).toBe(before!.subscriptionStatus);
  });
});

describe('the admin application with Microsoft 365 (issue 24)', () => {
  it("a Microsoft 365 organisation's org-admin uses the console with the m365 sign-in's token", async () => {
    const nestor = await json(`${usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: contosoId,
        email: 'nestor@contoso.test',
        firstName: 'Nestor',
        lastName: 'Vance',
        role: 'org-admin',
      },
    });
    expect(nestor.status).toBe(201);
    const { idToken, graphToken } = await msalSignIn('nestor@contoso.test', DEMO_CONTOSO_PASSWORD);
    const signedIn = await login(idToken, { graphAccessToken: graphToken });
    expect(signedIn.status).toBe(200);
    const bearer = { authorization: `Bearer ${String(signedIn.body.accessToken)}` };
    const me = await json(`${users}/console/me`, { headers: bearer });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({
      email: 'nestor@contoso.test',
      organisationId: contosoId,
      role: 'org-admin',
    });
    expect(me.body.permissions).toContain('ConfigureSSO');
    const sso = await json(`${users}/console/organisations/${contosoId}/sso`, { headers: bearer });
    expect(sso.status).toBe(200);
    expect(sso.body.provider).toBeNull();
    // A member's m365 token reaches the console too, and is refused by permission, not by its mode.
    const { idToken: meganId, graphToken: meganGraph } = await msalSignIn(
      'megan@contoso.test',
      DEMO_CONTOSO_PASSWORD,
    );
    const megan = await login(meganId, { graphAccessToken: meganGraph });
    const denied = await json(`${users}/console/organisations/${contosoId}/sso`, {
      headers: { authorization: `Bearer ${String(megan.body.accessToken)}` },
    });
    expect(denied).toMatchObject({ status: 403, body: { errorCode: 'PERMISSION_DENIED' } });
  });
});
