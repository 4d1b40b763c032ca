import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { adminJson, createUser, type TestUser } from './fixtures.ts';
import { signInWithPassword, submitPassword, tabTo } from './journeys.ts';

// Another organisation's web app signs a person in through the consent screen: a confidential
// client registered through the authorization server's admin client API, and a tiny relying party
// on openid-client (authorization code, PKCE, client_secret_basic) that shows what it got back.

/** The relying party: `/login` starts an authorization, `/callback` shows its outcome as text. */
async function startRelyingParty(
  issuer: string,
  register: (redirectUri: string) => Promise<{ id: string; secret: string }>,
) {
  const pending = new Map<string, string>();
  const registered: { config?: oidc.Configuration } = {};
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', base);
      const { config } = registered;
      if (!config) throw new Error('the relying party is not registered yet');
      if (url.pathname === '/login') {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        pending.set(state, verifier);
        const target = oidc.buildAuthorizationUrl(config, {
          redirect_uri: `${base}/callback`,
          scope: url.searchParams.get('scope') ?? 'openid',
          state,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        res.writeHead(302, { location: target.href }).end();
        return;
      }
      const state = url.searchParams.get('state') ?? '';
      try {
        const tokens = await oidc.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: pending.get(state),
          expectedState: state,
        });
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`signed in: ${tokens.claims()?.sub ?? ''}`);
      } catch (err) {
        const error = err instanceof oidc.AuthorizationResponseError ? err.error : String(err);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`refused: ${error}`);
      }
    })().catch((err: unknown) => res.writeHead(500).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = await register(`${base}/callback`);
  registered.config = await oidc.discovery(new URL(issuer), client.id, client.secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });
  return {
    base,
    clientId: client.id,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('consent for another organisation’s web app, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  const appName = `Reports ${randomBytes(3).toString('hex')}`;
  let rp: Awaited<ReturnType<typeof startRelyingParty>>;
  let user: TestUser;

  beforeAll(async () => {
    user = await createUser(urls);
    rp = await startRelyingParty(urls.oauth2Public, async (redirectUri) => {
      const created = await adminJson<{ client_id: string; client_secret: string }>(
        `${urls.oauth2Admin}/admin/clients`,
        {
          method: 'POST',
          body: JSON.stringify({
            client_name: appName,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: [redirectUri],
            token_endpoint_auth_method: 'client_secret_basic',
            scope: 'openid',
            policy_uri: 'https://reports.example/privacy',
          }),
        },
      );
      return { id: created.client_id, secret: created.client_secret };
    });
  });
  afterAll(async () => {
    await rp?.close();
  });

  /** Starts the app's sign-in; signs in when the login page shows; waits for the consent screen. */
  async function toConsentScreen(page: Page, signIn: boolean): Promise<void> {
    await page.goto(`${rp.base}/login`);
    if (signIn) {
      await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
      await submitPassword(page, user);
    }
    await page
      .getByRole('heading', { name: `Allow ${appName} to sign you in?` })
      .waitFor({ timeout: 30_000 });
  }

  it('Deny sends access_denied; Allow sends tokens; Connected apps lists it by name; revoked, it is asked again', async () => {
    const { context, page } = await browser.newPage();
    await toConsentScreen(page, true);
    expect(await page.getByText('Registered by the platform operator.').isVisible()).toBe(true);
    expect(await page.getByText('Know who you are').isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'Privacy policy' }).getAttribute('rel')).toBe(
      'noopener noreferrer',
    );
    expect(await seriousViolations(page)).toEqual([]);

    // Deny, by keyboard: the application gets access_denied.
    await tabTo(page, 'Deny');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${rp.base}/callback**`, { timeout: 30_000 });
    expect(await page.textContent('body')).toBe('refused: access_denied');

    // Again, Allow: the application gets tokens for this person.
    await toConsentScreen(page, false);
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${rp.base}/callback**`, { timeout: 30_000 });
    expect(await page.textContent('body')).toBe(`signed in: ${user.identityId}`);

    // Remembered: the next sign-in to the application asks nothing.
    await page.goto(`${rp.base}/login`);
    await page.waitForURL(`${rp.base}/callback**`, { timeout: 30_000 });
    expect(await page.textContent('body')).toBe(`signed in: ${user.identityId}`);

    // Connected apps (the account page, signed in to the platform in another browser) lists it by
    // name; revoked, it disappears, and the application's next sign-in asks again.
    const account = await browser.newPage();
    await signInWithPassword(account.page, urls, user);
    await account.page.goto(`${urls.platform}/account/settings`);
    await account.page.getByRole('heading', { name: 'Account settings' }).waitFor({ timeout: 30_000 });
    const listed = account.page.getByTestId('connected-app').filter({ hasText: appName });
    await listed.waitFor({ timeout: 30_000 });
    await account.page.getByRole('button', { name: `Revoke: ${appName}` }).click();
    await listed.waitFor({ state: 'detached', timeout: 30_000 });
    await account.page.goto(`${rp.base}/login`);
    await account.page
      .getByRole('heading', { name: `Allow ${appName} to sign you in?` })
      .waitFor({ timeout: 30_000 });
    await account.context.close();
    await context.close();
  });

  it('the demo third-party app of npm start signs a person in through consent and shows their claims', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.demoApp}/`);
    await page.getByRole('link', { name: 'Sign in with the platform' }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await submitPassword(page, user);
    await page
      .getByRole('heading', { name: 'Allow Demo third-party app to sign you in?' })
      .waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${urls.demoApp}/callback**`, { timeout: 30_000 });
    const claims = JSON.parse((await page.getByTestId('id-token-claims').textContent()) ?? '{}') as {
      sub?: string;
      aud?: unknown;
    };
    expect(claims.sub).toBe(user.identityId);
    const userinfo = JSON.parse((await page.getByTestId('userinfo').textContent()) ?? '{}') as {
      sub?: string;
      email?: string;
    };
    expect(userinfo).toMatchObject({ sub: user.identityId, email: user.email });
    await context.close();
  });
});
