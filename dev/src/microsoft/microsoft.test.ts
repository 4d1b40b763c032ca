import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_CONTOSO_PASSWORD,
  DEMO_CONTOSO_TENANT_ID,
  DEMO_FOREIGN_CLIENT_ID,
  DEMO_FOREIGN_REDIRECT_ORIGIN,
  DEMO_M365_CLIENT_ID,
  DEMO_M365_CLIENT_SECRET,
  DEMO_NORTHWIND_PASSWORD,
  DEMO_PUBLISHER_TENANT_ID,
  GRAPH_APP_ID,
  MARKETPLACE_APP_ID,
  startMicrosoftStandIns,
  type MicrosoftStandIns,
} from './index.ts';

const APP_ORIGIN = 'http://localhost:4001';
const REDIRECT = `${APP_ORIGIN}/account/redirect.html`;
let ms: MicrosoftStandIns;

beforeAll(async () => {
  ms = await startMicrosoftStandIns({
    entraPort: 0,
    graphPort: 0,
    marketplacePort: 0,
    appOrigins: [APP_ORIGIN],
  });
});
afterAll(async () => {
  await ms.close();
});

const form = (values: Record<string, string>) => new URLSearchParams(values);

async function tokenCall(tenant: string, values: Record<string, string>) {
  const res = await fetch(`${ms.urls.entra}/${tenant}/oauth2/v2.0/token`, {
    method: 'POST',
    headers: { origin: APP_ORIGIN },
    body: form(values),
  });
  return { res, body: (await res.json()) as Record<string, unknown> };
}

/** Runs the authorize page as a browser would; returns the redirect's fragment parameters. */
async function signIn(
  email: string,
  password: string,
  extra: Record<string, string> = {},
): Promise<{ params: URLSearchParams; verifier: string; page?: string }> {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    client_id: DEMO_M365_CLIENT_ID,
    response_type: 'code',
    redirect_uri: REDIRECT,
    scope: 'email User.Read Organization.Read.All openid profile offline_access',
    state: 'state-1',
    nonce: 'nonce-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    response_mode: 'fragment',
    ...extra,
  });
  const page = await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize?${query}`);
  const html = await page.text();
  expect(page.status).toBe(200);
  expect(html).toContain('Sign in');
  expect(html).toContain('Cancel');
  const ctx = /name="ctx" value="([^"]+)"/.exec(html)![1]!;
  const res = await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize`, {
    method: 'POST',
    body: form({ ctx, email, password, action: 'signin' }),
    redirect: 'manual',
  });
  if (res.status !== 302) return { params: new URLSearchParams(), verifier, page: await res.text() };
  const location = res.headers.get('location')!;
  expect(location.startsWith(`${REDIRECT}#`)).toBe(true);
  return { params: new URLSearchParams(location.split('#')[1]), verifier };
}

describe('Entra stand-in: discovery and sign-in', () => {
  it('publishes discovery and keys with CORS, issuer per tenant', async () => {
    const res = await fetch(
      `${ms.urls.entra}/${DEMO_CONTOSO_TENANT_ID}/v2.0/.well-known/openid-configuration`,
      {
        headers: { origin: APP_ORIGIN },
      },
    );
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    const body = (await res.json()) as Record<string, string>;
    expect(body.issuer).toBe(`${ms.urls.entra}/${DEMO_CONTOSO_TENANT_ID}/v2.0`);
    expect(body.token_endpoint).toBe(`${ms.urls.entra}/${DEMO_CONTOSO_TENANT_ID}/oauth2/v2.0/token`);
    const common = (await (
      await fetch(`${ms.urls.entra}/organizations/v2.0/.well-known/openid-configuration`)
    ).json()) as Record<string, string>;
    expect(common.issuer).toBe(`${ms.urls.entra}/{tenantid}/v2.0`);
    const keys = (await (await fetch(body.jwks_uri!)).json()) as { keys: { kid: string; d?: string }[] };
    expect(keys.keys[0]!.kid).toBeTruthy();
    expect(keys.keys[0]!.d).toBeUndefined();
  });

  it('signs Megan in: code and client_info in the fragment, ID token claims, refresh', async () => {
    const { params, verifier } = await signIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    expect(params.get('state')).toBe('state-1');
    const clientInfo = JSON.parse(Buffer.from(params.get('client_info')!, 'base64url').toString()) as Record<
      string,
      string
    >;
    expect(clientInfo.utid).toBe(DEMO_CONTOSO_TENANT_ID);
    const { res, body } = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      scope: 'email User.Read Organization.Read.All openid profile offline_access',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    expect(body.token_type).toBe('Bearer');
    expect(String(body.scope).split(' ')).toContain('Organization.Read.All');
    const id = decodeJwt(String(body.id_token));
    expect(id).toMatchObject({
      ver: '2.0',
      aud: DEMO_M365_CLIENT_ID,
      tid: DEMO_CONTOSO_TENANT_ID,
      oid: clientInfo.uid,
      preferred_username: 'megan@contoso.test',
      email: 'megan@contoso.test',
      name: 'Megan Bowen',
      nonce: 'nonce-1',
      iss: `${ms.urls.entra}/${DEMO_CONTOSO_TENANT_ID}/v2.0`,
    });
    const at = decodeJwt(String(body.access_token));
    expect(at.aud).toBe(GRAPH_APP_ID);

    // The code is single use.
    const replay = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(replay.res.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    expect(replay.body.error_codes).toEqual([54005]);
    expect(String(replay.body.error_description)).toMatch(/^AADSTS54005: /);

    const refreshed = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
      scope: 'User.Read openid profile',
    });
    expect(refreshed.res.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(body.refresh_token);
    // Rotated: the old one is gone.
    const again = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'refresh_token',
      refresh_token: String(body.refresh_token),
    });
    expect(again.body.error).toBe('invalid_grant');

    // Graph answers /me and /organization for this token.
    const me = await fetch(`${ms.urls.graph}/v1.0/me`, {
      headers: { authorization: `Bearer ${String(body.access_token)}` },
    });
    expect(((await me.json()) as Record<string, string>).mail).toBe('megan@contoso.test');
    const org = await fetch(`${ms.urls.graph}/v1.0/organization`, {
      headers: { authorization: `Bearer ${String(body.access_token)}` },
    });
    const orgBody = (await org.json()) as { value: { id: string; verifiedDomains: { name: string }[] }[] };
    expect(orgBody.value[0]!.id).toBe(DEMO_CONTOSO_TENANT_ID);
    expect(orgBody.value[0]!.verifiedDomains[0]!.name).toBe('contoso.test');
  });
});

describe('Entra stand-in: refusals and on-behalf-of', () => {
  it('refuses a wrong password, a wrong PKCE verifier and a foreign redirect URI', async () => {
    const wrong = await signIn('megan@contoso.test', 'nope');
    expect(wrong.page).toContain('AADSTS50126');
    const { params } = await signIn('megan@contoso.test', DEMO_CONTOSO_PASSWORD);
    const bad = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: 'x'.repeat(43),
    });
    expect(bad.body.error_codes).toEqual([501481]);
    const page = await fetch(
      `${ms.urls.entra}/organizations/oauth2/v2.0/authorize?client_id=${DEMO_M365_CLIENT_ID}&response_type=code&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
      { redirect: 'manual' },
    );
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('AADSTS50011');
  });

  it('Cancel redirects with access_denied', async () => {
    const page = await fetch(
      `${ms.urls.entra}/common/oauth2/v2.0/authorize?client_id=${DEMO_M365_CLIENT_ID}&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s2&scope=openid`,
    );
    const ctx = /name="ctx" value="([^"]+)"/.exec(await page.text())![1]!;
    const res = await fetch(`${ms.urls.entra}/common/oauth2/v2.0/authorize`, {
      method: 'POST',
      body: form({ ctx, action: 'cancel' }),
      redirect: 'manual',
    });
    const fragment = new URLSearchParams(res.headers.get('location')!.split('#')[1]);
    expect(fragment.get('error')).toBe('access_denied');
    expect(fragment.get('state')).toBe('s2');
  });

  it('exchanges a Teams token on behalf of the user, and refuses without consent', async () => {
    const teams = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    const obo = await tokenCall(DEMO_CONTOSO_TENANT_ID, {
      client_id: DEMO_M365_CLIENT_ID,
      client_secret: DEMO_M365_CLIENT_SECRET,
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: teams,
      requested_token_use: 'on_behalf_of',
      scope: 'https://graph.microsoft.com/User.Read https://graph.microsoft.com/Organization.Read.All',
    });
    expect(obo.res.status).toBe(200);
    expect(decodeJwt(String(obo.body.access_token)).scp).toBe('User.Read Organization.Read.All');

    const wrongSecret = await tokenCall(DEMO_CONTOSO_TENANT_ID, {
      client_id: DEMO_M365_CLIENT_ID,
      client_secret: 'wrong',
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: teams,
      requested_token_use: 'on_behalf_of',
    });
    expect(wrongSecret.res.status).toBe(401);
    expect(wrongSecret.body.error).toBe('invalid_client');

    const lee = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'lee@northwind.test');
    const noConsent = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      client_secret: DEMO_M365_CLIENT_SECRET,
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: lee,
      requested_token_use: 'on_behalf_of',
    });
    expect(noConsent.body).toMatchObject({
      error: 'invalid_grant',
      error_codes: [65001],
      suberror: 'consent_required',
    });
  });
});

describe('Entra stand-in: Graph and foreign clients', () => {
  it('without admin consent Graph refuses /organization', async () => {
    const { params, verifier } = await signIn('lee@northwind.test', DEMO_NORTHWIND_PASSWORD);
    const { body } = await tokenCall('organizations', {
      client_id: DEMO_M365_CLIENT_ID,
      grant_type: 'authorization_code',
      code: params.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const org = await fetch(`${ms.urls.graph}/v1.0/organization`, {
      headers: { authorization: `Bearer ${String(body.access_token)}` },
    });
    expect(org.status).toBe(403);
    expect(((await org.json()) as { error: { code: string } }).error.code).toBe(
      'Authorization_RequestDenied',
    );
  });

  it('a second, foreign client gets a token for our API: aud is ours, azp is the foreign client', async () => {
    const verifier = randomBytes(32).toString('base64url');
    const redirect = `${DEMO_FOREIGN_REDIRECT_ORIGIN}/callback`;
    const query = new URLSearchParams({
      client_id: DEMO_FOREIGN_CLIENT_ID,
      response_type: 'code',
      redirect_uri: redirect,
      scope: `api://localhost/${DEMO_M365_CLIENT_ID}/access_as_user openid`,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const html = await (await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize?${query}`)).text();
    const ctx = /name="ctx" value="([^"]+)"/.exec(html)![1]!;
    const res = await fetch(`${ms.urls.entra}/organizations/oauth2/v2.0/authorize`, {
      method: 'POST',
      body: form({ ctx, email: 'megan@contoso.test', password: DEMO_CONTOSO_PASSWORD, action: 'signin' }),
      redirect: 'manual',
    });
    const code = new URLSearchParams(res.headers.get('location')!.split('#')[1]).get('code')!;
    const { body } = await tokenCall('organizations', {
      client_id: DEMO_FOREIGN_CLIENT_ID,
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
    });
    expect(decodeJwt(String(body.access_token))).toMatchObject({
      aud: DEMO_M365_CLIENT_ID,
      azp: DEMO_FOREIGN_CLIENT_ID,
      scp: 'access_as_user',
      tid: DEMO_CONTOSO_TENANT_ID,
    });
    expect(decodeJwt(String(body.id_token)).aud).toBe(DEMO_FOREIGN_CLIENT_ID);
  });

  it('Graph refuses a token for another audience', async () => {
    const teams = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    const res = await fetch(`${ms.urls.graph}/v1.0/me`, { headers: { authorization: `Bearer ${teams}` } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('InvalidAuthenticationToken');
  });
});

describe('marketplace stand-in', () => {
  async function appToken(): Promise<string> {
    const { body } = await tokenCall(DEMO_PUBLISHER_TENANT_ID, {
      client_id: DEMO_M365_CLIENT_ID,
      client_secret: DEMO_M365_CLIENT_SECRET,
      grant_type: 'client_credentials',
      scope: `${MARKETPLACE_APP_ID}/.default`,
    });
    return String(body.access_token);
  }

  it('resolves a purchase token (URL-encoded once), activates, and refuses calls without an app token', async () => {
    const { token, subscription } = ms.marketplace.purchase('alex@fabrikam.test');
    const bearer = await appToken();
    const resolve = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/resolve?api-version=2018-08-31`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'x-ms-marketplace-token': encodeURIComponent(token) },
      },
    );
    expect(resolve.status).toBe(200);
    const resolved = (await resolve.json()) as { id: string; planId: string };
    expect(resolved.id).toBe(subscription.id);

    const noToken = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/resolve?api-version=2018-08-31`,
      {
        method: 'POST',
        headers: { 'x-ms-marketplace-token': token },
      },
    );
    expect(noToken.status).toBe(401);

    const invalid = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/resolve?api-version=2018-08-31`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'x-ms-marketplace-token': 'bogus' },
      },
    );
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: { code: string } }).error.code).toBe('BadArgument');

    const activate = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/${subscription.id}/activate?api-version=2018-08-31`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify({ planId: resolved.planId, quantity: 1 }),
      },
    );
    expect(activate.status).toBe(200);
    const get = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/${subscription.id}?api-version=2018-08-31`,
      {
        headers: { authorization: `Bearer ${bearer}` },
      },
    );
    expect(((await get.json()) as { saasSubscriptionStatus: string }).saasSubscriptionStatus).toBe(
      'Subscribed',
    );
  });

  it('Get Operation answers the operation a webhook announced, and 404 for any other', async () => {
    const { subscription } = ms.marketplace.purchase('alex@fabrikam.test');
    // No publisher here (port 9 refuses): the operation is recorded before the call.
    ms.marketplace.setWebhookUrl('http://127.0.0.1:9/webhook');
    await expect(ms.marketplace.sendWebhook(subscription.id, 'Suspend')).rejects.toThrow();
    const operation = [...ms.marketplace.operations.values()].find(
      (o) => o.subscriptionId === subscription.id,
    )!;
    const bearer = await appToken();
    const get = (subscriptionId: string, operationId: string) =>
      fetch(
        `${ms.urls.marketplace}/api/saas/subscriptions/${subscriptionId}/operations/${operationId}?api-version=2018-08-31`,
        { headers: { authorization: `Bearer ${bearer}` } },
      );
    const found = await get(subscription.id, operation.id);
    expect(found.status).toBe(200);
    expect(await found.json()).toMatchObject({
      id: operation.id,
      subscriptionId: subscription.id,
      action: 'Suspend',
      status: 'Succeeded',
    });
    expect((await get(subscription.id, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const other = ms.marketplace.purchase('alex@fabrikam.test').subscription;
    expect((await get(other.id, operation.id)).status).toBe(404);
    const anonymous = await fetch(
      `${ms.urls.marketplace}/api/saas/subscriptions/${subscription.id}/operations/${operation.id}?api-version=2018-08-31`,
    );
    expect(anonymous.status).toBe(401);
  });
});
