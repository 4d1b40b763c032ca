import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { seedDemo } from '../src/seed.ts';
import { platformAuthorizeUrl } from './auth-stack.ts';
import { Jar } from './jar.ts';
import {
  exchangeCode,
  passwordLogin,
  startRealStack,
  tokenRequest,
  whoami as sessionOf,
  type RealStack,
  type RealStackUrls,
} from './real-stack.ts';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The consent step through our real identity service and authorization server, all in process on
 * one database, as `npm start` runs them: authorize → identity login with the login challenge →
 * POST /login/consent → callback code → token whose `ext` carries products and scope groups.
 */

const APP_ORIGIN = 'http://localhost:4000';

describe('consent through the real identity service and authorization server', () => {
  let stack: RealStack;
  let urls: RealStackUrls;

  beforeAll(async () => {
    stack = await startRealStack({
      appOrigin: APP_ORIGIN,
      // Without the user service's admin API the authorization server shows every consent screen.
      oauth2KnowsUsers: false,
      usersEnv: (auth) => ({ IDENTITY_PUBLIC_URL: auth.identityPublic }),
    });
    urls = stack.urls;
    await seedDemo(urls.usersAdmin);
  });
  afterAll(async () => {
    await stack.close();
  });

  /** Authorize, sign in with the identity service, and stop at the consent screen. */
  async function toConsent(email: string) {
    const jar = new Jar();
    const { url: authorizeUrl, verifier } = platformAuthorizeUrl(urls.issuer, APP_ORIGIN);
    const login = await jar.navigateToApp(authorizeUrl);
    expect(login.pathname).toBe('/account/login');
    const loginChallenge = login.searchParams.get('login_challenge')!;

    const submitted = await passwordLogin(jar, urls.identityPublic, loginChallenge, email);
    expect(submitted.res.status).toBe(422);
    const whoami = await sessionOf(jar, urls.identityPublic);
    expect(whoami.res.status).toBe(200);

    const consent = await jar.navigateToApp(submitted.body.redirect_browser_to);
    expect(consent.pathname).toBe('/account/consent');
    return {
      jar,
      verifier,
      consentChallenge: consent.searchParams.get('consent_challenge')!,
      session: whoami.body,
    };
  }

  /** The callback's code exchanged for tokens (client platform, PKCE). */
  const exchange = (callback: URL, verifier: string) => exchangeCode(urls.issuer, callback, verifier);

  const postConsent = (consentChallenge: string, identitySessionId: string) =>
    new Jar().fetch(`${urls.users}/login/consent`, {
      method: 'POST',
      headers: { origin: APP_ORIGIN },
      json: { consentChallenge, identitySessionId },
    });

  it('accepts consent for the signed-in user and the token carries products and scope groups', async () => {
    const issuer = urls.issuer;
    const { jar, verifier, consentChallenge, session } = await toConsent('ada@acme.test');
    const accepted = await postConsent(consentChallenge, session.id);
    expect(accepted.res.status).toBe(200);
    expect(accepted.body).toEqual({ redirectTo: expect.stringContaining(issuer) });

    const callback = await jar.navigateToApp(accepted.body.redirectTo);
    expect(callback.pathname).toBe('/account/callback');
    const code = callback.searchParams.get('code')!;
    expect(code).toMatch(/^ory_ac_/);

    const token = await exchange(callback, verifier);
    expect(token.status).toBe(200);
    const { access_token: accessToken } = token.body as { access_token: string };
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims.sub).toBe(session.identity.id);
    expect(claims.ext).toEqual({
      user: { authenticationMode: 'ory', email: 'ada@acme.test', name: 'Ada Lovelace' },
      products: ['Platform', 'MAGIC'],
      scopeGroups: [],
      role: 'org-admin',
      organisation: { id: expect.any(String), name: 'Acme' },
      subscriptionStatus: 'subscribed',
    });

    // The consent request is now handled: posting it again returns where it went (Hydra's 410).
    const again = await postConsent(consentChallenge, session.id);
    expect(again.res.status).toBe(200);
    expect(again.body.redirectTo).toEqual(expect.any(String));
  });

  it('connected apps: the person sees the application they granted and revoking it ends its refresh token', async () => {
    const { jar, verifier, consentChallenge, session } = await toConsent('ada@acme.test');
    const accepted = await postConsent(consentChallenge, session.id);
    const callback = await jar.navigateToApp(accepted.body.redirectTo);
    const { refresh_token: refreshToken } = (await exchange(callback, verifier)).body as {
      refresh_token: string;
    };

    const listed = await jar.fetch(`${urls.users}/me/connected-apps`, { headers: { origin: APP_ORIGIN } });
    expect(listed.res.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.apps).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          clientId: 'platform',
          name: 'Platform',
          scopes: expect.arrayContaining(['openid']),
        }),
      ]),
    );
    // One entry per application, though Ada signed in to it more than once in this file.
    expect(listed.body.apps.filter((a: { clientId: string }) => a.clientId === 'platform')).toHaveLength(1);
    // Nobody else's: without the session, 401.
    expect((await new Jar().fetch(`${urls.users}/me/connected-apps`)).res.status).toBe(401);

    const revoked = await jar.fetch(`${urls.users}/me/connected-apps/platform`, {
      method: 'DELETE',
      headers: { origin: APP_ORIGIN },
    });
    expect(revoked.res.status).toBe(204);
    const refreshed = await tokenRequest(urls.issuer, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: 'platform',
    });
    expect(refreshed.status).toBe(400);
    const after = await jar.fetch(`${urls.users}/me/connected-apps`, { headers: { origin: APP_ORIGIN } });
    expect(after.body.apps.filter((a: { clientId: string }) => a.clientId === 'platform')).toEqual([]);
  });

  it('an access token alone (as a Microsoft 365 person holds) shows the account and the connected apps; a refused token never falls back to the cookie', async () => {
    const { jar, verifier, consentChallenge, session } = await toConsent('ada@acme.test');
    const accepted = await postConsent(consentChallenge, session.id);
    const callback = await jar.navigateToApp(accepted.body.redirectTo);
    const { access_token: accessToken } = (await exchange(callback, verifier)).body as {
      access_token: string;
    };
    const bearer = { authorization: `Bearer ${accessToken}`, origin: APP_ORIGIN };

    // No cookie at all: the token says who is asking.
    const account = await new Jar().fetch(`${urls.users}/me/account`, { headers: bearer });
    expect(account.res.status, JSON.stringify(account.body)).toBe(200);
    expect(account.body).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@acme.test',
      organisation: { name: 'Acme' },
    });
    const apps = await new Jar().fetch(`${urls.users}/me/connected-apps`, { headers: bearer });
    expect(apps.res.status).toBe(200);
    expect(apps.body.apps.map((a: { clientId: string }) => a.clientId)).toContain('platform');

    // Token confusion: a forged or foreign token next to Ada's own session cookie gets 401, not Ada's data.
    for (const forged of ['Bearer not-a-token', `Bearer ${accessToken}x`, 'Basic YWRhOnB3']) {
      const refused = await jar.fetch(`${urls.users}/me/connected-apps`, {
        headers: { authorization: forged, origin: APP_ORIGIN },
      });
      expect(refused.res.status, forged).toBe(401);
      expect(refused.body.apps).toBeUndefined();
      const deleted = await jar.fetch(`${urls.users}/me/connected-apps/platform`, {
        method: 'DELETE',
        headers: { authorization: forged, origin: APP_ORIGIN },
      });
      expect(deleted.res.status, forged).toBe(401);
    }
    // The grant is still there after the refused revocations.
    const still = await new Jar().fetch(`${urls.users}/me/connected-apps`, { headers: bearer });
    expect(still.body.apps.map((a: { clientId: string }) => a.clientId)).toContain('platform');
  });

  it('refuses a session of another identity with 403 SESSION_MISMATCH', async () => {
    const ada = await toConsent('ada@acme.test');
    const grace = await toConsent('grace@acme.test');
    const res = await postConsent(ada.consentChallenge, grace.session.id);
    expect(res.res.status).toBe(403);
    expect(res.body).toEqual({ errorCode: 'SESSION_MISMATCH', message: expect.any(String) });
  });

  it('created the seeded identities with the user service id and onboarding traits', async () => {
    const users = (await new Jar().fetch(`${urls.usersAdmin}/admin/users`)).body.users as any[];
    const ada = users.find((u) => u.email === 'ada@acme.test');
    const identity = await createIdentityAdminClient({ baseUrl: urls.identityAdmin }).getIdentity(
      ada.identityId,
    );
    expect(identity).not.toBeNull();
    expect(identity?.traits).toMatchObject({
      userServiceID: ada.id,
      email: 'ada@acme.test',
      name: { first: 'Ada', last: 'Lovelace' },
      onboarding: { isGitUser: false, gitProviderConnected: false, tosAccepted: true },
    });
    expect(identity?.verifiable_addresses?.[0]).toMatchObject({ value: 'ada@acme.test', verified: true });
  });

  it('passes on the identity service refusing a weak password, leaving no user behind', async () => {
    const admin = new Jar();
    const orgId = (await admin.fetch(`${urls.usersAdmin}/admin/organisations`)).body.organisations[0].id;
    const res = await admin.fetch(`${urls.usersAdmin}/admin/users`, {
      method: 'POST',
      json: {
        organisationId: orgId,
        email: 'weak@acme.test',
        firstName: 'W',
        lastName: 'P',
        role: 'member',
        password: 'short',
      },
    });
    expect(res.res.status).toBe(400);
    expect(res.body).toEqual({ errorCode: 'IDENTITY_REJECTED', message: expect.any(String) });
    const users = (await admin.fetch(`${urls.usersAdmin}/admin/users`)).body.users as any[];
    expect(users.map((u) => u.email)).not.toContain('weak@acme.test');
  });

  it('answers 404 for an unknown consent challenge', async () => {
    const { session } = await toConsent('grace@acme.test');
    const res = await postConsent('unknown-challenge', session.id);
    expect(res.res.status).toBe(404);
    expect(res.body.errorCode).toBe('CONSENT_REQUEST_NOT_FOUND');
  });
});
