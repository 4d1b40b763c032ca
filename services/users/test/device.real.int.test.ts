import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../src/seed.ts';
import { Jar } from './jar.ts';
import {
  deviceAuthorization as authorizeDevice,
  passwordLogin,
  pollDevice,
  postDeviceVerification,
  startRealStack,
  tokenRequest,
  whoami,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/**
 * Device sign-in (RFC 8628) through the real authorization server, identity service and user
 * service: the CLI's device authorization → the device page's challenge → the user code through
 * `POST /login/device/verify` → identity login → the consent shown on the device page
 * (`GET /login/device/consent`) → `POST /login/consent` or `/login/device/deny` → polling.
 */

const APP_ORIGIN = 'http://localhost:4000';

describe('device sign-in through the real services', () => {
  let stack: RealStack;
  let urls: RealStackUrls;

  beforeAll(async () => {
    stack = await startRealStack({ appOrigin: APP_ORIGIN });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin);
  });
  afterAll(async () => {
    await stack.close();
  });

  const users = (path: string, json?: unknown) =>
    new Jar().fetch(`${urls.users}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { origin: APP_ORIGIN },
      ...(json === undefined ? {} : { json }),
    });

  const deviceAuthorization = () => authorizeDevice(urls.issuer);
  const poll = (deviceCode: string) => pollDevice(urls.issuer, deviceCode);

  /** The device page asks the authorization server for a challenge (302 back to the page). */
  async function openDevicePage(jar: Jar) {
    const page = await jar.navigateToApp(`${urls.issuer}/oauth2/device/verify`);
    expect(page.pathname).toBe('/account/device');
    return page.searchParams.get('device_challenge')!;
  }

  /** Code → verifier → the library's auto-posted form → identity login → the device page's consent. */
  async function toConsent(email: string, userCode: string) {
    const jar = new Jar();
    const challenge = await openDevicePage(jar);
    const verified = await users('/login/device/verify', { deviceChallenge: challenge, userCode });
    expect(verified.res.status).toBe(200);
    const posted = await postDeviceVerification(jar, urls.issuer, verified.body.redirectTo);
    // The device page gets the login request; it sends a person without Microsoft 365 to the login page.
    const login = await jar.navigateToApp(posted.res.headers.get('location')!);
    expect(login.pathname).toBe('/account/device');
    const loginChallenge = login.searchParams.get('login_challenge')!;
    const submitted = await passwordLogin(jar, urls.identityPublic, loginChallenge, email);
    expect(submitted.res.status).toBe(422);
    const session = await whoami(jar, urls.identityPublic);
    const consent = await jar.navigateToApp(submitted.body.redirect_browser_to);
    expect(consent.pathname).toBe('/account/device');
    return { jar, consentChallenge: consent.searchParams.get('consent_challenge')!, session: session.body };
  }

  it('approve: the page shows the client and access, the CLI gets tokens with the same ext as a browser sign-in, and they end with the identity session', async () => {
    const auth = await deviceAuthorization();
    expect(auth.verification_uri).toBe(`${APP_ORIGIN}/account/device`);
    expect((await poll(auth.device_code)).body.error).toBe('authorization_pending');

    const { jar, consentChallenge, session } = await toConsent('ada@acme.test', auth.user_code);
    const shown = await users(
      `/login/device/consent?consentChallenge=${encodeURIComponent(consentChallenge)}`,
    );
    expect(shown.res.status).toBe(200);
    expect(shown.body).toEqual({
      clientId: 'research-cli',
      clientName: 'Research CLI',
      requestedScope: ['openid', 'offline_access'],
      authenticationMode: 'ory',
    });
    const accepted = await users('/login/consent', {
      consentChallenge,
      identitySessionId: session.id,
      decision: 'allow',
    });
    expect(accepted.res.status).toBe(200);
    const done = await jar.navigateToApp(accepted.body.redirectTo);
    expect(done.toString()).toBe(`${APP_ORIGIN}/account/device?status=approved`);

    const tokens = await poll(auth.device_code);
    expect(tokens.status).toBe(200);
    const claims = JSON.parse(Buffer.from(tokens.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe(session.identity.id);
    expect(claims.client_id).toBe('research-cli');
    expect(claims.ext).toEqual({
      user: { authenticationMode: 'ory', email: 'ada@acme.test', name: 'Ada Lovelace' },
      products: ['Platform', 'MAGIC'],
      scopeGroups: [],
      role: 'org-admin',
      organisation: { id: expect.any(String), name: 'Acme' },
      subscriptionStatus: 'subscribed',
    });

    // Ending the identity session ends the device's refresh token at its next use.
    const refresh = (token: string) =>
      tokenRequest(urls.issuer, {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: 'research-cli',
      });
    const rotated = await refresh(tokens.body.refresh_token);
    expect(rotated.status).toBe(200);
    const revoked = await fetch(`${urls.identityAdmin}/admin/identities/${session.identity.id}/sessions`, {
      method: 'DELETE',
    });
    expect(revoked.status).toBe(204);
    const after = await refresh(rotated.body.refresh_token);
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('device deny needs a session: the challenge alone, or another person’s session, denies nothing', async () => {
    const auth = await deviceAuthorization();
    const { consentChallenge } = await toConsent('grace@acme.test', auth.user_code);
    const other = await toConsent('ada@acme.test', (await deviceAuthorization()).user_code);

    const bare = await users('/login/device/deny', { consentChallenge });
    expect(bare.res.status).toBe(401);
    expect(bare.body.errorCode).toBe('UNAUTHENTICATED');
    const foreign = await users('/login/device/deny', {
      consentChallenge,
      identitySessionId: other.session.id,
    });
    expect(foreign.res.status).toBe(403);
    expect(foreign.body.errorCode).toBe('SESSION_MISMATCH');
    const made = await users('/login/device/deny', {
      consentChallenge,
      identitySessionId: '00000000-0000-4000-8000-000000000000',
    });
    expect(made.body.errorCode).toBe('SESSION_MISMATCH');

    // The device is not denied: its owner can still approve it, and it gets its tokens.
    expect((await poll(auth.device_code)).body.error).toBe('authorization_pending');
    const mine = await toConsent('grace@acme.test', (await deviceAuthorization()).user_code);
    const approved = await users('/login/consent', {
      consentChallenge,
      identitySessionId: mine.session.id,
      decision: 'allow',
    });
    expect(approved.res.status).toBe(200);
  });

  it('deny: the device page comes back with error=denied and the CLI gets access_denied', async () => {
    const auth = await deviceAuthorization();
    const { jar, consentChallenge, session } = await toConsent('grace@acme.test', auth.user_code);
    const denied = await users('/login/device/deny', { consentChallenge, identitySessionId: session.id });
    expect(denied.res.status).toBe(200);
    const back = await jar.navigateToApp(denied.body.redirectTo);
    expect(back.toString()).toBe(`${APP_ORIGIN}/account/device?error=denied`);
    expect(await poll(auth.device_code)).toMatchObject({ status: 400, body: { error: 'access_denied' } });
  });

  it('wrong, used and unknown: each user-code error has its own errorCode for the page', async () => {
    const auth = await deviceAuthorization();
    const challenge = await openDevicePage(new Jar());
    const wrong = await users('/login/device/verify', { deviceChallenge: challenge, userCode: 'BCDF-GHJK' });
    expect(wrong.res.status).toBe(400);
    expect(wrong.body.errorCode).toBe('DEVICE_CODE_INVALID');
    const ok = await users('/login/device/verify', { deviceChallenge: challenge, userCode: auth.user_code });
    expect(ok.res.status).toBe(200);
    const again = await openDevicePage(new Jar());
    const used = await users('/login/device/verify', { deviceChallenge: again, userCode: auth.user_code });
    expect(used.body.errorCode).toBe('DEVICE_CODE_USED');
    const unknown = await users('/login/device/verify', {
      deviceChallenge: 'nope',
      userCode: auth.user_code,
    });
    expect(unknown.res.status).toBe(404);
    expect(unknown.body.errorCode).toBe('DEVICE_REQUEST_NOT_FOUND');
    const bad = await users('/login/device/verify', { deviceChallenge: challenge });
    expect(bad.res.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_REQUEST');
  });
});
