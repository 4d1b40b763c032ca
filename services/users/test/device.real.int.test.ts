import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb } from '@acme/db';
import type { Database } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start as startUsers } from '../src/index.ts';
import { DEMO_PASSWORD, seedDemo } from '../src/seed.ts';
import { startAuthStack } from './auth-stack.ts';
import { Jar } from './jar.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Device sign-in (RFC 8628) through the real authorization server, identity service and user
 * service: the CLI's device authorization → the device page's challenge → the user code through
 * `POST /login/device/verify` → identity login → the consent shown on the device page
 * (`GET /login/device/consent`) → `POST /login/consent` or `/login/device/deny` → polling.
 */

const APP_ORIGIN = 'http://localhost:4000';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe('device sign-in through the real services', () => {
  let db: Database;
  const urls: Record<string, string> = {};
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await createTestDb();
    const [usersPublic, usersAdmin] = await Promise.all([freePort(), freePort()]);
    const usersAdminUrl = `http://localhost:${usersAdmin}`;
    Object.assign(urls, await startAuthStack(db, closers, { appOrigin: APP_ORIGIN, usersAdminUrl }));
    const users = await startUsers({
      db,
      logger: false,
      env: {
        USERS_PUBLIC_PORT: String(usersPublic),
        USERS_ADMIN_PORT: String(usersAdmin),
        IDENTITY_ADMIN_URL: urls.identityAdmin,
        OAUTH2_ADMIN_URL: urls.oauth2Admin,
      },
    });
    closers.push(users.close);
    urls.users = users.urls.public!;
    urls.usersAdmin = users.urls.admin!;
    await seedDemo(urls.usersAdmin);
  });
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await db.close();
  });

  const users = (path: string, json?: unknown) =>
    new Jar().fetch(`${urls.users}${path}`, {
      method: json === undefined ? 'GET' : 'POST',
      headers: { origin: APP_ORIGIN },
      ...(json === undefined ? {} : { json }),
    });

  async function deviceAuthorization() {
    const res = await fetch(`${urls.issuer}/oauth2/device/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'research-cli', scope: 'openid offline_access' }).toString(),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { device_code: string; user_code: string; verification_uri: string };
  }

  async function poll(deviceCode: string) {
    const res = await fetch(`${urls.issuer}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: DEVICE_GRANT,
        device_code: deviceCode,
        client_id: 'research-cli',
      }).toString(),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  }

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
    const form = await jar.fetch(verified.body.redirectTo);
    expect(form.res.status).toBe(200);
    const inputs: Record<string, string> = {};
    for (const m of String(form.body).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"\/>/g)) {
      inputs[m[1]!] = m[2]!;
    }
    const posted = await jar.fetch(`${urls.issuer}/oauth2/device/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(inputs).toString(),
    });
    // The device page gets the login request; it sends a person without Microsoft 365 to the login page.
    const login = await jar.navigateToApp(posted.res.headers.get('location')!);
    expect(login.pathname).toBe('/account/device');
    const loginChallenge = login.searchParams.get('login_challenge')!;
    const flow = await jar.fetch(
      `${urls.identityPublic}/self-service/login/browser?login_challenge=${encodeURIComponent(loginChallenge)}`,
      { headers: { accept: 'application/json' } },
    );
    const csrf = flow.body.ui.nodes.find((n: any) => n.attributes.name === 'csrf_token').attributes.value;
    const submitted = await jar.fetch(`${urls.identityPublic}/self-service/login?flow=${flow.body.id}`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      json: { method: 'password', identifier: email, password: DEMO_PASSWORD, csrf_token: csrf },
    });
    expect(submitted.res.status).toBe(422);
    const whoami = await jar.fetch(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    const consent = await jar.navigateToApp(submitted.body.redirect_browser_to);
    expect(consent.pathname).toBe('/account/device');
    return { jar, consentChallenge: consent.searchParams.get('consent_challenge')!, session: whoami.body };
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
    const accepted = await users('/login/consent', { consentChallenge, identitySessionId: session.id });
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
      subscriptionStatus: 'subscribed',
    });

    // Ending the identity session ends the device's refresh token at its next use.
    const refresh = (token: string) =>
      fetch(`${urls.issuer}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: 'research-cli',
        }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, any> }));
    const rotated = await refresh(tokens.body.refresh_token);
    expect(rotated.status).toBe(200);
    const revoked = await fetch(`${urls.identityAdmin}/admin/identities/${session.identity.id}/sessions`, {
      method: 'DELETE',
    });
    expect(revoked.status).toBe(204);
    const after = await refresh(rotated.body.refresh_token);
    expect(after).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('deny: the device page comes back with error=denied and the CLI gets access_denied', async () => {
    const auth = await deviceAuthorization();
    const { jar, consentChallenge } = await toConsent('grace@acme.test', auth.user_code);
    const denied = await users('/login/device/deny', { consentChallenge });
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
