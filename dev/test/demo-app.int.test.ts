import { freePort } from '@acme/test-kit/free-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  adminJson,
  CookieJar,
  location,
  navigate,
  startServer,
  type TestServer,
} from '../../services/oauth2/test/harness.ts';
import { DEMO_APP_CLIENT_ID, startDemoApp } from '../src/demo-app.ts';

/**
 * The demo third-party app against our real authorization server: it registers itself through the
 * admin client API as a confidential client, sends the person through sign-in and consent (it is
 * not first-party), and shows the claims it got with its secret.
 */

describe('demo third-party app', () => {
  let oauth2: TestServer;
  let demo: Awaited<ReturnType<typeof startDemoApp>>;

  beforeAll(async () => {
    oauth2 = await startServer();
    demo = await startDemoApp({
      port: await freePort(),
      issuer: oauth2.issuer,
      oauth2AdminUrl: oauth2.admin,
    });
  });
  afterAll(async () => {
    await demo?.close();
    await oauth2?.close();
    await oauth2?.db.close();
  });

  /** Starts a sign-in at the demo app and signs the person in; returns the consent challenge. */
  async function toConsent(jar: CookieJar): Promise<string> {
    const login = await navigate(jar, `${demo.url}/login`);
    const authorize = location(login);
    expect(authorize.origin).toBe(oauth2.issuer);
    const challenge = location(await navigate(jar, authorize.toString())).searchParams.get(
      'login_challenge',
    )!;
    const accepted = await adminJson(
      oauth2,
      'PUT',
      `/admin/oauth2/auth/requests/login/accept?login_challenge=${challenge}`,
      { subject: 'identity-ada', remember: false, amr: ['password'] },
    );
    const consent = location(await navigate(jar, accepted.body.redirect_to as string));
    return consent.searchParams.get('consent_challenge')!;
  }

  it('registers a confidential client, asks for consent, and shows the claims it got', async () => {
    const client = await adminJson(oauth2, 'GET', `/admin/clients/${DEMO_APP_CLIENT_ID}`);
    expect(client.status).toBe(404); // registered at the first sign-in, not before

    const jar = new CookieJar();
    const consentChallenge = await toConsent(jar);
    const registered = await adminJson(oauth2, 'GET', `/admin/clients/${DEMO_APP_CLIENT_ID}`);
    expect(registered.body).toMatchObject({
      token_endpoint_auth_method: 'client_secret_basic',
      skip_consent: false,
      redirect_uris: [`${demo.url}/callback`],
    });
    const request = await adminJson(
      oauth2,
      'GET',
      `/admin/oauth2/auth/requests/consent?consent_challenge=${consentChallenge}`,
    );
    expect((request.body.client as { client_name: string }).client_name).toBe('Demo third-party app');
    const granted = await adminJson(
      oauth2,
      'PUT',
      `/admin/oauth2/auth/requests/consent/accept?consent_challenge=${consentChallenge}`,
      {
        grant_scope: request.body.requested_scope,
        session: { access_token: {}, id_token: { email: 'ada@acme.test' } },
      },
    );
    const callback = location(await navigate(jar, granted.body.redirect_to as string));
    expect(callback.origin + callback.pathname).toBe(`${demo.url}/callback`);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('&quot;sub&quot;: &quot;identity-ada&quot;');
    expect(html).toContain('&quot;email&quot;: &quot;ada@acme.test&quot;');
    // The same callback again (a replayed code and state) signs nobody in.
    expect((await fetch(callback)).status).toBe(400);
  });

  it('a person who denies gets no sign-in', async () => {
    const jar = new CookieJar();
    const consentChallenge = await toConsent(jar);
    const rejected = await adminJson(
      oauth2,
      'PUT',
      `/admin/oauth2/auth/requests/consent/reject?consent_challenge=${consentChallenge}`,
      { error: 'access_denied', error_description: 'The person denied the request.' },
    );
    const callback = location(await navigate(jar, rejected.body.redirect_to as string));
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const page = await fetch(callback);
    expect(page.status).toBe(403);
    expect(await page.text()).not.toContain('Signed in');
  });
});
