import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterCredentials, enterEmail, openLogin } from './journeys.ts';

const WRONG_CREDENTIALS =
  'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

describe('password sign-in, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a new user signs in with email and password, stays signed in on reload, and logs out', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();

    await page.goto(`${urls.platform}/`);
    await page.waitForURL(/\/account\/login/);
    // Waits as long as a loaded machine needs to render it (expect.poll gives up after 1 s).
    await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout: 30_000 });

    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Enter password' }).waitFor();
    expect(await page.getByText('Logging in as').isVisible()).toBe(true);

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();

    const cookies = await context.cookies(urls.platform);
    const token = cookies.find((c) => c.name === 'oauth2_token');
    expect(token, 'the OAuth2 token is kept in the oauth2_token cookie').toBeDefined();
    expect(token?.sameSite).toBe('Lax');

    await page.reload();
    await page.waitForURL(`${urls.platform}/research`);
    await page.getByText(user.email).first().waitFor();

    await page.getByRole('link', { name: /log ?out/i }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    const after = await context.cookies(urls.platform);
    expect(after.find((c) => c.name === 'oauth2_token')).toBeUndefined();

    // Signed out for real: the platform page sends us back to sign in.
    await page.goto(`${urls.platform}/research`);
    await page.waitForURL(/\/account\/login/);
    await context.close();
  });

  it('a wrong password shows the error and the user can try again', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByLabel('Password').fill('not-the-password-1!');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(WRONG_CREDENTIALS, { exact: true }).waitFor();
    expect(page.url()).toContain('/account/login');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });

  it('a stale login_challenge recovers without a dead end', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    // The stale challenge is found out before the user types: the app starts a fresh authorization.
    const restarted = page.waitForRequest((r) => r.url().startsWith(`${urls.oauth2Public}/oauth2/auth`));
    await page.goto(`${urls.platform}/account/login?login_challenge=stale-challenge-that-does-not-exist`);
    await restarted;
    await page.waitForURL(`${urls.platform}/account/login`);
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await enterCredentials(page, urls, user);
    await context.close();
  });
});
