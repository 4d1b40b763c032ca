import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { ssoOrganisation as organisation, type Member } from './fixtures.ts';
import { enterEmail, openLogin, signInWithPassword } from './journeys.ts';

// Issue 20, item 14: an organisation whose SSO provider enforces SSO has no password sign-in, except
// for the one break-glass org-admin the operator exempted. The SSO step's "Sign in with a password
// (administrators)" is how that admin reaches the Password step in the browser; the identity service
// decides. A throwaway organisation (its own domain) keeps the other journeys' organisations as seeded.

const USE_PASSWORD = 'Sign in with a password (administrators)';
/** The account page's notice for a member of an organisation that enforces SSO (copy.settings.ssoManaged). */
const SSO_MANAGED =
  'Your organisation signs you in through its identity provider (single sign-on), so your email address, password and passkeys are managed there and can not be changed here.';
const SSO_ENFORCED =
  "Your organisation requires single sign-on (SSO). Sign in through your organisation's identity provider: a password can not be used or reset for this address.";

/** The operator's set-up: an organisation enforcing SSO, an org-admin (exempted) and a member. */
async function enforcingOrganisation(urls: SystemUrls): Promise<{ admin: Member; member: Member }> {
  const { admin, member, enforce } = await organisation(urls);
  await enforce();
  return { admin, member };
}

/**
 * Back from the provider (it was down, or the person came back): the SSO redirect lock is held, so the
 * SSO step waits on its Proceed view instead of leaving at once (the lock the step itself writes).
 */
async function backFromProvider(context: BrowserContext, urls: SystemUrls): Promise<void> {
  const lock = JSON.stringify({ id: 'e2e-lock', expiresAt: Date.now() + 5 * 60_000 });
  await context.addCookies([
    {
      name: 'sso_redirect_lock',
      value: encodeURIComponent(lock),
      domain: new URL(urls.platform).hostname,
      path: '/',
    },
  ]);
}

/** Email → the SSO step (Proceed view) → "Sign in with a password (administrators)" → password. */
async function passwordThroughSsoStep(page: Page, member: Member, axe = false): Promise<void> {
  await enterEmail(page, member.email);
  await page.getByRole('button', { name: 'Proceed' }).waitFor({ timeout: 30_000 });
  if (axe) expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole('button', { name: USE_PASSWORD }).click();
  await page.getByRole('heading', { name: 'Enter password' }).waitFor({ timeout: 30_000 });
  expect(await page.getByText(member.email).count()).toBeGreaterThan(0);
  if (axe) expect(await seriousViolations(page)).toEqual([]);
  await page.getByLabel('Password').fill(member.password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

async function whoamiStatus(page: Page, urls: SystemUrls): Promise<number> {
  return page.evaluate(async (url) => {
    const res = await fetch(`${url}/sessions/whoami`, { credentials: 'include' });
    return res.status;
  }, urls.identityPublic);
}

describe('SSO enforced: the break-glass org-admin signs in with a password from the SSO step', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('the exempted org-admin reaches /research through the password link; another member is refused with the SSO message and gets no session', async () => {
    const { admin, member } = await enforcingOrganisation(urls);

    const refused = await browser.newPage();
    await openLogin(refused.page, urls);
    await backFromProvider(refused.context, urls);
    await passwordThroughSsoStep(refused.page, member);
    await refused.page
      .getByRole('main')
      .getByRole('alert')
      .filter({ hasText: SSO_ENFORCED })
      .waitFor({ timeout: 30_000 });
    expect(await whoamiStatus(refused.page, urls)).toBe(401);
    expect(refused.page.url()).toContain('/account/login');
    // The way back to the Email step stays.
    await refused.page.getByRole('button', { name: 'Back to email' }).click();
    await refused.page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await refused.context.close();

    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await backFromProvider(context, urls);
    await passwordThroughSsoStep(page, admin, true);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(admin.email).first().waitFor();
    await context.close();
  });

  it('on the account page, a member signed in before SSO was enforced is told why and offered no password or passkey; the break-glass admin keeps them', async () => {
    const { admin, member, enforce } = await organisation(urls);
    const m = await browser.newPage();
    await signInWithPassword(m.page, urls, member);
    const a = await browser.newPage();
    await signInWithPassword(a.page, urls, admin);
    await enforce();
    const settings = async (page: Page) => {
      await page.goto(`${urls.platform}/account/settings`);
      await page.getByRole('heading', { name: 'Account settings' }).waitFor({ timeout: 30_000 });
      await page.getByTestId('settings-password').waitFor({ timeout: 30_000 });
    };

    await settings(m.page);
    await m.page.getByTestId('settings-flow-notice').filter({ hasText: SSO_MANAGED }).waitFor();
    expect(await m.page.getByRole('button', { name: 'Change password' }).count()).toBe(0);
    expect(await m.page.locator('input[type="password"]').count()).toBe(0);
    expect(await m.page.getByTestId('settings-passkeys').count()).toBe(0);
    expect(await seriousViolations(m.page)).toEqual([]);
    await m.context.close();

    await settings(a.page);
    await a.page.getByRole('button', { name: 'Change password' }).waitFor();
    expect(await a.page.getByTestId('settings-passkeys').count()).toBe(1);
    expect(await a.page.getByTestId('settings-flow-notice').count()).toBe(0);
    await a.context.close();
  });
});
