import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { seriousViolations } from './axe.ts';
import { createUser } from './fixtures.ts';
import { signInWithPassword, submitPassword, tabTo } from './journeys.ts';

// The account page (/account/settings): backup codes, password change, sessions.
// Screenshots of each section go to E2E_SCREENSHOTS when set (for the lead's note; never committed).

const SHOTS = process.env.E2E_SCREENSHOTS;

async function shot(page: Page, section: string) {
  if (!SHOTS) return;
  await mkdir(SHOTS, { recursive: true });
  await page.getByTestId(`settings-${section}`).screenshot({ path: `${SHOTS}/settings-${section}.png` });
}

async function openSettings(page: Page, urls: SystemUrls) {
  await page.goto(`${urls.platform}/account/settings`);
  await page.getByRole('heading', { name: 'Account settings' }).waitFor({ timeout: 30_000 });
}

/** 2FA set up from /account/mfa-setup; answers the backup codes its last step offers. */
async function setUpTotpWithCodes(page: Page, urls: SystemUrls): Promise<string[]> {
  await page.goto(`${urls.platform}/account/mfa-setup`);
  const install = page.getByLabel('I have installed an authenticator app');
  await install.waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
  await install.check();
  await page.getByLabel('2FA code').pressSequentially(totpCode(secret));
  const list = page.getByTestId('backup-codes');
  await list.waitFor({ timeout: 30_000 });
  const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim());
  await page.getByRole('button', { name: 'I have saved these codes' }).click();
  await page.getByRole('button', { name: 'Return to the product Platform' }).waitFor({ timeout: 30_000 });
  return codes;
}

/** 2FA set up from /account/mfa-setup; answers the authenticator secret. */
async function setUpTotp(page: Page, urls: SystemUrls): Promise<string> {
  await page.goto(`${urls.platform}/account/mfa-setup`);
  const install = page.getByLabel('I have installed an authenticator app');
  await install.waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
  await install.check();
  await page.getByLabel('2FA code').pressSequentially(totpCode(secret));
  // The backup codes come in a step of their own, before the completion screen.
  await page.getByRole('heading', { name: 'Save your backup codes' }).waitFor({ timeout: 30_000 });
  expect(await page.getByTestId('backup-codes').getByRole('listitem').count()).toBe(12);
  await page.getByRole('button', { name: 'I have saved these codes' }).click();
  await page.getByRole('button', { name: 'Return to the product Platform' }).waitFor({ timeout: 30_000 });
  return secret;
}

/** Signs out, then password → "Use a backup code" → `code`. */
async function signInWithBackupCode(
  page: Page,
  urls: SystemUrls,
  user: { email: string; password: string },
  code: string,
) {
  await page.goto(`${urls.platform}/account/logout`);
  await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
  await page.getByRole('heading', { name: 'Welcome' }).waitFor();
  await submitPassword(page, user);
  await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Use a backup code' }).click();
  await page.getByLabel('Backup code').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe('account settings, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('backup codes: made in settings, one signs in instead of the app, and is refused the second time', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await signInWithPassword(page, urls, user);
    await setUpTotp(page, urls);

    await openSettings(page, urls);
    await page.getByTestId('totp-status').getByText('An authenticator app is set up.').waitFor();
    await page.getByTestId('backup-codes-left').getByText('12 of 12 backup codes left.').waitFor();
    await page.getByRole('button', { name: 'Make new backup codes' }).click();
    const list = page.getByTestId('backup-codes');
    await list.waitFor();
    const codes = (await list.getByRole('listitem').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(12);
    await shot(page, 'two-factor');
    await list.getByRole('button', { name: 'I have saved these codes' }).click();
    await page.getByText('Your new backup codes are active; the old ones no longer work.').waitFor();
    await page.getByTestId('backup-codes-left').getByText('12 of 12 backup codes left.').waitFor();

    await signInWithBackupCode(page, urls, user, codes[0]!);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });

    await signInWithBackupCode(page, urls, user, codes[0]!);
    await page
      .getByText('This backup recovery code has already been used.', { exact: true })
      .waitFor({ timeout: 30_000 });
    expect(page.url()).toContain('/account/login');
    await context.close();
  });

  it('a password change signs out another browser at its next request', async () => {
    const user = await createUser(urls);
    const a = await browser.newPage();
    const b = await browser.newPage();
    await signInWithPassword(a.page, urls, user);
    await signInWithPassword(b.page, urls, user);

    await openSettings(a.page, urls);
    await a.page.getByText('Changing your password signs you out on every other device').waitFor();
    await a.page.getByLabel('First name').fill('Renamed');
    await a.page.getByTestId('settings-profile').getByRole('button', { name: 'Save' }).click();
    await a.page.getByText('Your changes have been saved.').waitFor({ timeout: 30_000 });
    await shot(a.page, 'profile');
    await shot(a.page, 'password');
    const next = `${user.password}-Changed9!`;
    await a.page.getByLabel('New password', { exact: true }).fill(next);
    await a.page.getByLabel('Confirm new password').fill(next);
    await a.page.getByRole('button', { name: 'Change password' }).click();
    await a.page
      .getByText('Your password was changed. Every other session was signed out.')
      .waitFor({ timeout: 30_000 });

    await b.page.goto(`${urls.platform}/account/settings`);
    await b.page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await a.context.close();
    await b.context.close();
  });

  it('signing out another session from the list signs that browser out', async () => {
    const user = await createUser(urls);
    const a = await browser.newPage();
    const b = await browser.newPage();
    await signInWithPassword(a.page, urls, user);
    await signInWithPassword(b.page, urls, user);

    await openSettings(a.page, urls);
    const other = a.page.getByTestId('session-other');
    await other.waitFor();
    await a.page.getByTestId('session-current').getByText('This device').waitFor();
    await shot(a.page, 'sessions');
    // The application this browser signed in to is a connected app (its OAuth2 grant).
    await a.page.getByTestId('connected-app').getByText('Platform').first().waitFor();
    await shot(a.page, 'connected-apps');
    await shot(a.page, 'linked-accounts');
    await other.getByRole('button', { name: /Sign out/ }).click();
    await a.page.getByText('The session was signed out.').waitFor();
    expect(await a.page.getByTestId('session-other').count()).toBe(0);

    await b.page.goto(`${urls.platform}/account/settings`);
    await b.page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await a.context.close();
    await b.context.close();
  });

  it('by keyboard: a backup code signs in instead of the app, and is refused the second time', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await signInWithPassword(page, urls, user);
    const codes = await setUpTotpWithCodes(page, urls);
    expect(codes).toHaveLength(12);

    for (const attempt of ['first', 'second'] as const) {
      await page.goto(`${urls.platform}/account/logout`);
      await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      await tabTo(page, 'Email');
      await page.keyboard.type(user.email);
      await page.keyboard.press('Enter');
      await page.getByLabel('Password').waitFor();
      await tabTo(page, 'Password');
      await page.keyboard.type(user.password);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
      await tabTo(page, 'Use a backup code');
      await page.keyboard.press('Enter');
      await page.getByLabel('Backup code').waitFor();
      await tabTo(page, 'Backup code'); // focus is on the step's heading, as on every step
      await page.keyboard.type(codes[5]!);
      await page.keyboard.press('Enter');
      if (attempt === 'first') await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
      else
        await page
          .getByText('This backup recovery code has already been used.', { exact: true })
          .waitFor({ timeout: 30_000 });
    }
    await context.close();
  });

  it('by keyboard: signing out another session from the list signs that browser out (axe: no serious issue)', async () => {
    const user = await createUser(urls);
    const a = await browser.newPage();
    const b = await browser.newPage();
    await signInWithPassword(a.page, urls, user);
    await signInWithPassword(b.page, urls, user);

    await openSettings(a.page, urls);
    await a.page.getByTestId('session-other').waitFor();
    expect(await seriousViolations(a.page)).toEqual([]);
    await tabTo(a.page, 'Sign out:');
    await a.page.keyboard.press('Enter');
    await a.page.getByText('The session was signed out.').waitFor();
    expect(await a.page.getByTestId('session-other').count()).toBe(0);

    await b.page.goto(`${urls.platform}/account/settings`);
    await b.page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await a.context.close();
    await b.context.close();
  });
});
