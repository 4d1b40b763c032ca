import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { adminJson } from './fixtures.ts';
import { enterEmail, landOnResearch, openLogin, signInAtProvider, walkToProvider } from './journeys.ts';

// Organisation single sign-on through the organisation IdP stand-in (seeded: Globex, globex.test).
const PASSWORD = 'Globex-Demo-2026!';

/** At Globex's identity provider: its own page with email, password, Sign in and Cancel. */
const provider = (urls: SystemUrls) => `${urls.orgIdp}/interaction/`;
const atProvider = (page: Page, urls: SystemUrls, email: string) =>
  signInAtProvider(page, provider(urls), { email, password: PASSWORD });

describe('organisation single sign-on, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a known SSO user goes from the front door through the provider to /research, without a password in our app', async () => {
    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    const started = Date.now();
    await enterEmail(page, 'hopper@globex.test');
    await atProvider(page, urls, 'hopper@globex.test');
    await landOnResearch(page, urls, 'hopper@globex.test');
    console.warn(
      `SSO sign-in, email → /research (first sign-in, with the Terms step): ${Date.now() - started} ms`,
    );

    // A second sign-in in a new browser: no Terms step this time.
    const second = await browser.newPage();
    await openLogin(second.page, urls);
    const again = Date.now();
    await enterEmail(second.page, 'hopper@globex.test');
    await atProvider(second.page, urls, 'hopper@globex.test');
    await second.page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await second.page.getByText('hopper@globex.test').first().waitFor();
    console.warn(`SSO sign-in, email → /research (returning user): ${Date.now() - again} ms`);
    await second.context.close();
    await context.close();
  });

  it('a first-time SSO user gets an account at the first sign-in and lands on /research', async () => {
    const { context, page } = await browser.newPage();
    await walkToProvider(page, urls, 'lovelace@globex.test', provider(urls));
    await atProvider(page, urls, 'lovelace@globex.test');
    await landOnResearch(page, urls, 'lovelace@globex.test');
    const { users } = await adminJson<{ users: { email: string }[] }>(`${urls.usersAdmin}/admin/users`);
    // The cluster runs keyed: the identity service's calls to the user service carried USERS_ADMIN_KEY.
    if (inject('target') === 'cluster')
      expect((await fetch(`${urls.usersAdmin}/admin/users`)).status).toBe(401);
    expect(users.map((u) => u.email)).toContain('lovelace@globex.test');
    await context.close();
  });

  it('Cancel at the provider comes back with a message and a Proceed button; trying again signs in', async () => {
    const { context, page } = await browser.newPage();
    await walkToProvider(page, urls, 'hopper@globex.test', provider(urls));
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.waitForURL(/\/account\/login\?flow=/, { timeout: 30_000 });
    await page.getByText("Sign-in was cancelled at your organisation's identity provider.").waitFor();
    await page.getByText("Redirecting you to your organisation's SSO provider...").waitFor();
    await page.getByRole('button', { name: 'Proceed' }).click();

    await atProvider(page, urls, 'hopper@globex.test');
    await landOnResearch(page, urls, 'hopper@globex.test');
    await context.close();
  });

  it('an SSO user who opens MFA setup sees "SSO users cannot set up MFA"', async () => {
    const { context, page } = await browser.newPage();
    await walkToProvider(page, urls, 'hopper@globex.test', provider(urls));
    await atProvider(page, urls, 'hopper@globex.test');
    await landOnResearch(page, urls, 'hopper@globex.test');
    await page.goto(`${urls.platform}/account/mfa-setup`);
    await page.getByText('SSO users cannot set up MFA').waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('I have installed an authenticator app').count()).toBe(0);
    await context.close();
  });
});
