import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterEmail, openLogin, submitPassword, whereIs } from './journeys.ts';

// Issue 21, items 4–7 and 10 in Chromium: logout also signs out a Microsoft account still signed in;
// the login reads its query parameters (error, code, consent_challenge, post_logout); server error
// messages are toasts; guarded routes send a signed-out visitor to login.

const CONTOSO_PASSWORD = 'Contoso-Demo-2026!';

async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  expect((await seriousViolations(page)).map((v) => `${screen}: ${v}`)).toEqual([]);
}

describe('the last spec gaps (issue 21, items 4–7, 10)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('4. a password sign-in on MAGIC with a Microsoft account still signed in: logout ends the identity session, then signs the Microsoft account out at Entra', async () => {
    const { context, page } = await browser.newPage();
    // Megan signs in with Microsoft on MAGIC: MSAL keeps her account in MAGIC's local storage.
    await page.goto(`${urls.magic}/account/m365-login`);
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Continue' }).click();
    const popup = await popupOpened;
    await popup.getByLabel('Email').fill('megan@contoso.test');
    await popup.getByLabel('Password').fill(CONTOSO_PASSWORD);
    await popup.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });

    // Drop the m365 token only (MSAL's account stays) and sign in with a password: an ory token.
    await context.clearCookies({ name: 'oauth2_token' });
    const user = await createUser(urls);
    // The open page notices its token is gone and moves to login itself; either navigation will do.
    await page.goto(`${urls.magic}/account/login`).catch(() => undefined);
    await page.getByLabel('Email').waitFor({ timeout: 30_000 });
    await submitPassword(page, user);
    // Where it stopped instead, if it did: the address and what the page says.
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 }).catch(async (error: unknown) => {
      throw new Error(`no /research after the password at ${await whereIs(page)}`, { cause: error });
    });
    const ext = JSON.parse((await page.getByTestId('token-ext').textContent()) ?? '{}') as {
      user?: { authenticationMode?: string };
    };
    expect(ext.user?.authenticationMode).toBe('ory');

    const entraLogout = page.waitForRequest(
      (r) => r.url().startsWith(`${urls.entra}/`) && r.url().includes('/oauth2/v2.0/logout'),
      { timeout: 30_000 },
    );
    await page.getByRole('link', { name: /log ?out/i }).click();
    await entraLogout;
    await page.waitForURL(new RegExp(`^${urls.magic}/account/m365-login(\\?|$)`), { timeout: 30_000 });
    // The identity session ended first: whoami answers 401 for this browser.
    const whoami = await page.evaluate(async (identity) => {
      const res = await fetch(`${identity}/sessions/whoami`, { credentials: 'include' });
      return res.status;
    }, urls.identityPublic);
    expect(whoami).toBe(401);
    expect((await context.cookies(urls.magic)).find((c) => c.name === 'oauth2_token')).toBeUndefined();
    await context.close();
  });

  it('6. an authorization answer with error and error_description shows "OAuth2 error {code}. {description}" and Back to Login, without a new authorization', async () => {
    const { context, page } = await browser.newPage();
    const authorize: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/oauth2/auth')) authorize.push(r.url());
    });
    await page.goto(
      `${urls.platform}/account/login?error=access_denied&error_description=The+resource+owner+denied+the+request`,
    );
    await page.getByText('OAuth2 error access_denied. The resource owner denied the request').waitFor();
    await expectNoSeriousViolations(page, 'login: OAuth2 error');
    expect(authorize).toEqual([]);
    await page.getByRole('link', { name: 'Back to Login' }).click();
    await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout: 30_000 });
    expect(authorize.length).toBeGreaterThan(0);
    await context.close();
  });

  it('6. post_logout clears a stale token; consent_challenge goes to the consent screen', async () => {
    const { context, page } = await browser.newPage();
    const { hostname } = new URL(urls.platform);
    await context.addCookies([
      { name: 'oauth2_token', value: 'stale', domain: hostname, path: '/' },
      { name: 'email_verification_result', value: 'stale', domain: hostname, path: '/' },
    ]);
    await page.goto(`${urls.platform}/account/login?post_logout=1`);
    // The Email step is in the server's HTML, so its heading is there before the script has run:
    // the page's own reload to the address without post_logout is what says the logout has ended.
    await page.waitForURL(
      (url) => url.pathname === '/account/login' && !url.searchParams.has('post_logout'),
      {
        timeout: 30_000,
      },
    );
    await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout: 30_000 });
    const names = (await context.cookies(urls.platform)).map((c) => c.name);
    expect(names).not.toContain('oauth2_token');
    expect(names).not.toContain('email_verification_result');

    // A consent request that reached login goes on to the consent screen (which owns it). In a tab of
    // its own: the Email step paints before the login page's authorization round trip, so the page
    // above may still navigate and would abort this one.
    const consentTab = await context.newPage();
    await consentTab.goto(`${urls.platform}/account/login?consent_challenge=not-a-real-challenge`);
    await consentTab.waitForURL(`${urls.platform}/account/consent?consent_challenge=not-a-real-challenge`, {
      timeout: 30_000,
    });
    await context.close();
  });

  it('7. a wrong password: the message beside the form and a toast "Action could not be completed"', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByLabel('Password').fill('Not-the-password-1!');
    await page.getByRole('button', { name: 'Continue' }).click();
    const toast = page.locator('.toast');
    await toast.getByText('Action could not be completed').waitFor({ timeout: 30_000 });
    expect(await toast.textContent()).toContain(
      'Error with login flow: The provided credentials are invalid',
    );
    expect(await page.locator('.form-errors').textContent()).toContain(
      'The provided credentials are invalid',
    );
    await expectNoSeriousViolations(page, 'login: password error with toast');
    await context.close();
  });

  it('10. a signed-out visitor on a guarded route goes to login; a guest-allowed one stays', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.platform}/account/m365-logout`);
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    // The login starts its authorization round trip; the Email step shows once it is back.
    await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).pathname).toBe('/account/login');
    // In a tab of its own: the Email step paints before the login page's authorization round trip,
    // so that page may still navigate and would abort this one.
    const guestTab = await context.newPage();
    await guestTab.goto(`${urls.platform}/account/forgot-password`);
    await guestTab.getByRole('heading', { name: 'Forgot password' }).waitFor({ timeout: 30_000 });
    expect(new URL(guestTab.url()).pathname).toBe('/account/forgot-password');
    await context.close();
  });
});
