import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  demoDirectory,
  DEMO_CONTOSO_TENANT_ID,
  DEMO_FABRIKAM_TENANT_ID,
  DEMO_M365_CLIENT_ID,
  startMicrosoftStandIns,
  type MicrosoftStandIns,
} from '@acme/dev';
import { typed } from '@acme/db';
import { writeTrustedNetworks } from '../src/access/networks.ts';
import type { UsersDb } from '../src/db-types.ts';
import { seedDemo } from '../src/seed.ts';
import { Jar } from './jar.ts';
import {
  deviceAuthorization as authorizeDevice,
  DEVICE_GRANT,
  passwordLogin,
  postDeviceVerification,
  startRealStack,
  tokenRequest as postToken,
  whoami,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/**
 * Microsoft 365 people approving a device (RFC 8628) through the real authorization server,
 * identity service and user service, with the Entra and Graph stand-ins: the code is typed on
 * Platform's device page, Platform sends the person's login request on to MAGIC's device page,
 * where their access token from `/m365/login` accepts the login (`POST /m365/device/login`) and
 * then the consent (`POST /m365/device/consent`).
 */

const PLATFORM = 'http://localhost:4000';
const MAGIC = 'http://localhost:4001';
const TAILSPIN_TENANT_ID = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString());

describe('Microsoft 365 people approving a device', () => {
  let ms: MicrosoftStandIns;
  let stack: RealStack | undefined;
  let urls: RealStackUrls;

  beforeAll(async () => {
    const directory = demoDirectory([MAGIC]);
    directory.tenants.push({
      tenantId: TAILSPIN_TENANT_ID,
      displayName: 'Tailspin Toys',
      domains: [{ name: 'tailspin.test', isDefault: true }],
      adminConsent: true,
      users: [
        {
          objectId: '4f3d5e6a-7b8c-4d9e-8f0a-000000000001',
          email: 'kim@tailspin.test',
          displayName: 'Kim Akers',
          givenName: 'Kim',
          surname: 'Akers',
          password: 'Tailspin-Test-2026!',
        },
      ],
    });
    const standIns = await startMicrosoftStandIns({
      entraPort: 0,
      graphPort: 0,
      marketplacePort: 0,
      directory,
    });
    ms = standIns;
    stack = await startRealStack({
      appOrigin: PLATFORM,
      usersEnv: (auth) => ({
        IDENTITY_PUBLIC_URL: auth.identityPublic,
        M365_AUTHORITY_URL: standIns.urls.entra,
        GRAPH_URL: standIns.urls.graph,
        MARKETPLACE_API_URL: standIns.urls.marketplace,
      }),
    });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin, undefined, {
      m365: { contosoTenantId: DEMO_CONTOSO_TENANT_ID, fabrikamTenantId: DEMO_FABRIKAM_TENANT_ID },
    });
    // Another subscribed Microsoft 365 organisation (another tenant) with one user, Kim.
    const tailspin = await new Jar().fetch(`${urls.usersAdmin}/admin/organisations`, {
      method: 'POST',
      json: {
        name: 'Tailspin',
        domains: ['tailspin.test'],
        products: ['MAGIC'],
        subscriptionStatus: 'subscribed',
        m365: true,
        m365TenantIds: [TAILSPIN_TENANT_ID],
      },
    });
    expect(tailspin.res.status).toBe(201);
    const kim = await new Jar().fetch(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: tailspin.body.id,
        email: 'kim@tailspin.test',
        firstName: 'Kim',
        lastName: 'Akers',
        role: 'member',
        scopeGroups: [],
      },
    });
    expect(kim.res.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await stack?.close().catch(() => undefined);
    await ms?.close().catch(() => undefined);
  });

  const post = (path: string, json: unknown, bearer?: string) =>
    new Jar().fetch(`${urls.users}${path}`, {
      method: 'POST',
      headers: { origin: MAGIC, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      json,
    });

  /** Our access token for a Microsoft 365 person, as MAGIC's m365 sign-in gets it (Teams SSO path). */
  async function m365Token(email: string): Promise<string> {
    const microsoft = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, email);
    const res = await post('/m365/login', {}, microsoft);
    expect(res.res.status).toBe(200);
    return res.body.accessToken as string;
  }

  const deviceAuthorization = () => authorizeDevice(urls.issuer);

  const tokenRequest = (body: Record<string, string>) =>
    postToken(urls.issuer, { client_id: 'research-cli', ...body });
  const poll = (deviceCode: string) => tokenRequest({ grant_type: DEVICE_GRANT, device_code: deviceCode });
  const refresh = (token: string) => tokenRequest({ grant_type: 'refresh_token', refresh_token: token });

  /** Follows the authorization server's redirects until the browser lands on an application's page. */
  async function follow(jar: Jar, url: string): Promise<URL> {
    let next = new URL(url);
    for (let hop = 0; hop < 10; hop++) {
      if (next.origin !== urls.issuer) return next;
      const { res } = await jar.fetch(next.toString());
      const location = res.headers.get('location');
      if (!location) throw new Error(`expected a redirect from ${next.toString()}, got ${res.status}`);
      next = new URL(location, next);
    }
    throw new Error('too many redirects');
  }

  /** The code typed on an application's device page → the device client's login request. */
  async function toLogin(userCode: string, clientId?: string) {
    const jar = new Jar();
    const query = clientId ? `?client_id=${clientId}` : '';
    const page = await follow(jar, `${urls.issuer}/oauth2/device/verify${query}`);
    expect(page.pathname).toBe('/account/device');
    const verified = await post('/login/device/verify', {
      deviceChallenge: page.searchParams.get('device_challenge'),
      userCode,
    });
    expect(verified.res.status).toBe(200);
    const posted = await postDeviceVerification(jar, urls.issuer, verified.body.redirectTo);
    const login = await follow(jar, posted.res.headers.get('location')!);
    return { jar, login, loginChallenge: login.searchParams.get('login_challenge')! };
  }

  /** MAGIC's device page signs the person in with their m365 token: the consent comes back to MAGIC. */
  async function toConsent(token: string, userCode: string) {
    const { jar, login, loginChallenge } = await toLogin(userCode);
    // Platform's own device page gets the login request (its m365-unavailable step sends it to MAGIC).
    expect(login.origin + login.pathname).toBe(`${PLATFORM}/account/device`);
    const accepted = await post('/m365/device/login', { loginChallenge, application: 'magic' }, token);
    expect(accepted.res.status).toBe(200);
    const consent = await follow(jar, accepted.body.redirectTo);
    expect(consent.origin + consent.pathname).toBe(`${MAGIC}/account/device`);
    return { jar, loginChallenge, consentChallenge: consent.searchParams.get('consent_challenge')! };
  }

  /** MAGIC's device page approves: the browser follows the answer, which completes the device code. */
  async function approve(token: string, at: { jar: Jar; consentChallenge: string }) {
    const approved = await post('/m365/device/consent', { consentChallenge: at.consentChallenge }, token);
    expect(approved.res.status).toBe(200);
    return follow(at.jar, approved.body.redirectTo);
  }

  it('megan approves on MAGIC: the page shows the client and access, the CLI gets her claims with authenticationMode m365, and refresh works', async () => {
    const megan = await m365Token('megan@contoso.test');
    const auth = await deviceAuthorization();
    expect(auth.verification_uri).toBe(`${PLATFORM}/account/device`);
    const { jar, consentChallenge } = await toConsent(megan, auth.user_code);

    const shown = await new Jar().fetch(
      `${urls.users}/login/device/consent?consentChallenge=${encodeURIComponent(consentChallenge)}`,
    );
    expect(shown.body).toEqual({
      clientId: 'research-cli',
      clientName: 'Research CLI',
      requestedScope: ['openid', 'offline_access'],
      authenticationMode: 'm365',
    });
    const approved = await post('/m365/device/consent', { consentChallenge }, megan);
    expect(approved.res.status).toBe(200);
    const done = await follow(jar, approved.body.redirectTo);
    expect(done.toString()).toBe(`${MAGIC}/account/device?status=approved`);

    const tokens = await poll(auth.device_code);
    expect(tokens.status).toBe(200);
    const claims = payloadOf(tokens.body.access_token);
    expect(claims.client_id).toBe('research-cli');
    expect(claims.sub).toBe(payloadOf(megan).sub);
    expect(claims.ext).toEqual({
      user: { authenticationMode: 'm365', email: 'megan@contoso.test', name: 'Megan Bowen' },
      products: ['MAGIC'],
      scopeGroups: ['research'],
      role: 'member',
      organisation: { id: expect.any(String), name: 'Contoso' },
      subscriptionStatus: 'subscribed',
    });
    const rotated = await refresh(tokens.body.refresh_token);
    expect(rotated.status).toBe(200);
    expect(payloadOf(rotated.body.access_token).ext.user.authenticationMode).toBe('m365');
    // No identity session bounds this grant: its refresh token ends with the 24 h grant
    // (OAUTH2_M365_GRANT_TTL), not after the 30-day idle limit.
    const introspected = await fetch(`${urls.oauth2Admin}/admin/oauth2/introspect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: rotated.body.refresh_token }).toString(),
    }).then((r) => r.json() as Promise<{ active: boolean; exp: number }>);
    expect(introspected.active).toBe(true);
    const left = introspected.exp - Math.floor(Date.now() / 1000);
    expect(left).toBeGreaterThan(86_400 - 120);
    expect(left).toBeLessThanOrEqual(86_400);
  });

  it('denied on MAGIC: the CLI gets access_denied', async () => {
    const [megan, kim] = await Promise.all([m365Token('megan@contoso.test'), m365Token('kim@tailspin.test')]);
    const auth = await deviceAuthorization();
    const { jar, consentChallenge } = await toConsent(megan, auth.user_code);
    // Device deny needs a session: the challenge alone, or another person's token, denies nothing.
    const bare = await post('/login/device/deny', { consentChallenge });
    expect(bare.res.status).toBe(401);
    expect(bare.body.errorCode).toBe('UNAUTHENTICATED');
    const foreign = await post('/login/device/deny', { consentChallenge }, kim);
    expect(foreign.res.status).toBe(403);
    expect((await poll(auth.device_code)).body.error).toBe('authorization_pending');
    const denied = await post('/login/device/deny', { consentChallenge }, megan);
    const back = await follow(jar, denied.body.redirectTo);
    expect(back.toString()).toBe(`${MAGIC}/account/device?error=denied`);
    expect(await poll(auth.device_code)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('an m365 device can be approved from inside the trusted network, and not from outside it', async () => {
    const db = typed<UsersDb>(stack!.db);
    const { organisation_id: contoso } = await db
      .selectFrom('users')
      .select('organisation_id')
      .where('email', '=', 'megan@contoso.test')
      .executeTakeFirstOrThrow();
    // The test's requests come from the loopback address: inside these ranges.
    const setRanges = (ranges: string[]) => writeTrustedNetworks(db, contoso, ranges, null, new Date());
    await setRanges(['127.0.0.0/8', '::1/128']);
    try {
      const megan = await m365Token('megan@contoso.test');
      const auth = await deviceAuthorization();
      const at = await toConsent(megan, auth.user_code);
      expect((await approve(megan, at)).searchParams.get('status')).toBe('approved');
      const tokens = await poll(auth.device_code);
      expect(tokens.status).toBe(200);
      expect(payloadOf(tokens.body.access_token).ext.user.authenticationMode).toBe('m365');

      await setRanges(['198.51.100.0/24']);
      const second = await deviceAuthorization();
      const { loginChallenge } = await toLogin(second.user_code);
      const refused = await post('/m365/device/login', { loginChallenge, application: 'magic' }, megan);
      expect(refused.res.status).toBe(403);
      expect(refused.body.errorCode).toBe('NETWORK_NOT_TRUSTED');
    } finally {
      await setRanges([]);
    }
  });

  it('a code typed on MAGIC’s own device page keeps the sign-in on MAGIC', async () => {
    const auth = await deviceAuthorization();
    const { login } = await toLogin(auth.user_code, 'magic');
    expect(login.origin + login.pathname).toBe(`${MAGIC}/account/device`);
  });

  it('another tenant’s person cannot approve a device whose sign-in was someone else’s (DEVICE_SIGN_IN_REFUSED)', async () => {
    const [megan, kim] = await Promise.all([m365Token('megan@contoso.test'), m365Token('kim@tailspin.test')]);
    const auth = await deviceAuthorization();
    const { consentChallenge } = await toConsent(megan, auth.user_code);
    const stolen = await post('/m365/device/consent', { consentChallenge }, kim);
    expect(stolen.res.status).toBe(403);
    expect(stolen.body).toMatchObject({ errorCode: 'DEVICE_SIGN_IN_REFUSED', message: expect.any(String) });
    expect((await poll(auth.device_code)).body.error).toBe('authorization_pending');
  });

  it('a token issued to another client cannot sign a device in: a password sign-in’s, a device’s own, a Microsoft token (UNAUTHENTICATED)', async () => {
    const megan = await m365Token('megan@contoso.test');
    // A device's own tokens (client research-cli, authenticationMode m365) must not chain devices.
    const first = await deviceAuthorization();
    await approve(megan, await toConsent(megan, first.user_code));
    const deviceToken = (await poll(first.device_code)).body.access_token as string;
    expect(payloadOf(deviceToken).ext.user.authenticationMode).toBe('m365');
    // ada's token from a password sign-in on Platform (another client, no m365).
    const adaToken = await passwordToken('ada@acme.test');
    const microsoft = await ms.entra.teamsToken(DEMO_M365_CLIENT_ID, 'megan@contoso.test');
    // A token of the m365 client itself from a browser (password) sign-in: authenticationMode ory.
    const issued = await new Jar().fetch(`${urls.oauth2Admin}/admin/oauth2/federated-tokens`, {
      method: 'POST',
      json: {
        subject: payloadOf(megan).sub,
        client_id: 'magic',
        session: { access_token: { ...payloadOf(megan).ext, user: { authenticationMode: 'ory' } } },
      },
    });
    expect(issued.res.status).toBe(200);
    const browserToken = issued.body.access_token as string;

    const auth = await deviceAuthorization();
    const { loginChallenge } = await toLogin(auth.user_code);
    for (const bearer of [deviceToken, adaToken, browserToken, microsoft, 'not-a-token']) {
      const res = await post('/m365/device/login', { loginChallenge, application: 'magic' }, bearer);
      expect(res.res.status).toBe(401);
      expect(res.body).toMatchObject({ errorCode: 'UNAUTHENTICATED', message: expect.any(String) });
    }
    const none = await post('/m365/device/login', { loginChallenge, application: 'magic' });
    expect(none.res.status).toBe(401);
    // Still pending for the rightful person.
    const ok = await post('/m365/device/login', { loginChallenge, application: 'magic' }, megan);
    expect(ok.res.status).toBe(200);
  });

  it('a replayed login or consent challenge is refused, and the CLI gets one set of tokens (50 parallel approvals, 50 parallel polls)', async () => {
    const megan = await m365Token('megan@contoso.test');
    const auth = await deviceAuthorization();
    const { jar, loginChallenge, consentChallenge } = await toConsent(megan, auth.user_code);
    const again = await post('/m365/device/login', { loginChallenge, application: 'magic' }, megan);
    expect(again.res.status).toBe(404);
    expect(again.body.errorCode).toBe('LOGIN_REQUEST_NOT_FOUND');
    const results = await Promise.all(
      Array.from({ length: 50 }, () => post('/m365/device/consent', { consentChallenge }, megan)),
    );
    // Each approval is 200 with a consent verifier or 404: never a redirect back to the request.
    for (const r of results) {
      if (r.res.status === 200) expect(r.body.redirectTo).toContain('consent_verifier=');
      else expect(r.body.errorCode).toBe('CONSENT_REQUEST_NOT_FOUND');
    }
    const first = results.find((r) => r.res.status === 200)!;
    expect(first).toBeDefined();
    await follow(jar, first.body.redirectTo);
    // A replayed device code, 50 copies at once: one set of tokens, the rest invalid_grant.
    const polls = await Promise.all(Array.from({ length: 50 }, () => poll(auth.device_code)));
    expect(polls.filter((p) => p.status === 200)).toHaveLength(1);
    expect(polls.filter((p) => p.status === 400 && p.body.error === 'invalid_grant')).toHaveLength(49);
    expect((await poll(auth.device_code)).status).toBe(400);
    const replay = await post('/m365/device/consent', { consentChallenge }, megan);
    expect(replay.res.status).toBe(404);
    expect(replay.body.errorCode).toBe('CONSENT_REQUEST_NOT_FOUND');
  });

  it('the m365 path signs in device clients only: an application’s own login request is refused', async () => {
    const megan = await m365Token('megan@contoso.test');
    const jar = new Jar();
    const authorize = new URL(`${urls.issuer}/oauth2/auth`);
    for (const [k, v] of Object.entries({
      client_id: 'platform',
      response_type: 'code',
      redirect_uri: `${PLATFORM}/account/callback`,
      scope: 'openid offline_access',
      state: 'state-1234',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(k, v);
    const login = await follow(jar, authorize.toString());
    const loginChallenge = login.searchParams.get('login_challenge')!;
    expect(loginChallenge).toBeTruthy();
    const res = await post('/m365/device/login', { loginChallenge, application: 'platform' }, megan);
    expect(res.res.status).toBe(403);
    expect(res.body.errorCode).toBe('DEVICE_SIGN_IN_REFUSED');
  });

  it('a deactivated person can neither approve a device nor refresh one approved before', async () => {
    const megan = await m365Token('megan@contoso.test');
    const auth = await deviceAuthorization();
    await approve(megan, await toConsent(megan, auth.user_code));
    const tokens = await poll(auth.device_code);
    expect(tokens.status).toBe(200);

    const pending = await deviceAuthorization();
    const { loginChallenge } = await toLogin(pending.user_code);
    const identityId = payloadOf(megan).sub as string;
    await setIdentityState(identityId, 'inactive');
    try {
      const refused = await post('/m365/device/login', { loginChallenge, application: 'magic' }, megan);
      expect(refused.res.status).toBe(403);
      expect(refused.body).toMatchObject({ errorCode: 'ACCOUNT_INACTIVE', message: expect.any(String) });
      const ended = await refresh(tokens.body.refresh_token);
      expect(ended).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      await setIdentityState(identityId, 'active');
    }
    // The grant stays ended after reactivation.
    expect((await refresh(tokens.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('bad input gets the documented errors, never a 500', async () => {
    const megan = await m365Token('megan@contoso.test');
    const cases: [string, unknown, number, string][] = [
      ['/m365/device/login', {}, 400, 'INVALID_REQUEST'],
      ['/m365/device/login', { loginChallenge: 'x\u0000', application: 'magic' }, 400, 'INVALID_REQUEST'],
      [
        '/m365/device/login',
        { loginChallenge: 'x'.repeat(5000), application: 'magic' },
        400,
        'INVALID_REQUEST',
      ],
      [
        '/m365/device/login',
        { loginChallenge: 'unknown', application: 'magic' },
        404,
        'LOGIN_REQUEST_NOT_FOUND',
      ],
      ['/m365/device/consent', { consentChallenge: 'unknown' }, 404, 'CONSENT_REQUEST_NOT_FOUND'],
      ['/m365/device/consent', { consentChallenge: 'a', extra: 1 }, 400, 'INVALID_REQUEST'],
    ];
    for (const [path, body, status, errorCode] of cases) {
      const res = await post(path, body, megan);
      expect({ path, status: res.res.status, errorCode: res.body.errorCode }).toEqual({
        path,
        status,
        errorCode,
      });
    }
    const malformed = await new Jar().fetch(`${urls.users}/m365/device/login`, {
      method: 'POST',
      headers: { authorization: `Bearer ${megan}`, 'content-type': 'application/json' },
      body: '{"loginChallenge":',
    });
    expect(malformed.res.status).toBe(400);
  });

  async function setIdentityState(identityId: string, state: string) {
    const res = await fetch(`${urls.identityAdmin}/admin/identities/${identityId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ op: 'replace', path: '/state', value: state }]),
    });
    expect(res.status).toBe(200);
  }

  /** ada's device token from a password sign-in (client research-cli, authenticationMode ory). */
  async function passwordToken(email: string): Promise<string> {
    const auth = await deviceAuthorization();
    const { jar, loginChallenge } = await toLogin(auth.user_code);
    const submitted = await passwordLogin(jar, urls.identityPublic, loginChallenge, email);
    const session = await whoami(jar, urls.identityPublic);
    const consent = await follow(jar, submitted.body.redirect_browser_to);
    const consentChallenge = consent.searchParams.get('consent_challenge')!;
    const accepted = await post('/login/consent', {
      consentChallenge,
      identitySessionId: session.body.id,
      decision: 'allow',
    });
    expect(accepted.res.status).toBe(200);
    await follow(jar, accepted.body.redirectTo);
    const tokens = await poll(auth.device_code);
    expect(tokens.status).toBe(200);
    return tokens.body.access_token as string;
  }
});
