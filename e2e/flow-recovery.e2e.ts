import type { Page, Response } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { createUser, type TestUser } from './fixtures.ts';
import { enterEmail, openLogin, setUpSecondFactor, signInWithPassword } from './journeys.ts';
import { codeIn, newestMail } from './mailbox.ts';

// Issue 21, done-when: a flow that can no longer be used starts a fresh one and keeps what the person
// typed, and the browser's Back button never leaves a step without its heading and its form.

async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  expect((await seriousViolations(page)).map((v) => `${screen}: ${v}`)).toEqual([]);
}

/** A step is usable: its heading, an enabled field to type in and an enabled submit button. */
async function expectUsableStep(page: Page, heading: string, field: string, screen: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: heading }).waitFor({ timeout: 30_000 });
  const input = page.getByLabel(field, { exact: true });
  await input.waitFor({ timeout: 30_000 });
  // The Email step takes typing once the page has its login challenge and stays (ADR 0021).
  await expect.poll(() => input.isEditable(), { timeout: 30_000 }).toBe(true);
  expect(await page.getByRole('button', { name: 'Continue' }).isVisible()).toBe(true);
  await expectNoSeriousViolations(page, screen);
}

/** The forgot-password walk up to the Password step; answers the recovery flow id the code was used on. */
async function recoverToPasswordStep(page: Page, urls: SystemUrls, user: TestUser): Promise<string> {
  await openLogin(page, urls);
  await enterEmail(page, user.email);
  await page.getByRole('link', { name: 'Forgot Password' }).click();
  await page.getByRole('heading', { name: 'Forgot password' }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Verify your email' }).waitFor({ timeout: 30_000 });
  const flowId = new URL(page.url()).searchParams.get('flow') ?? '';
  const code = codeIn(await newestMail(urls, user.email, undefined, /password recovery code/));
  await page.getByPlaceholder('000000').fill(code);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Change your password' }).waitFor({ timeout: 30_000 });
  return flowId;
}

async function setNewPassword(page: Page, password: string): Promise<void> {
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('Confirm new password').fill(password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
}

describe('flows that can no longer be used, and the Back button (issue 21)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a login flow that can no longer be used (its anti-CSRF cookie is gone) is replaced by a fresh one, and the typed password still signs in', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    const answers: Response[] = [];
    page.on('response', (r) => {
      if (r.url().startsWith(`${urls.identityPublic}/self-service/login`)) answers.push(r);
    });
    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByLabel('Password').fill(user.password);
    // The browser drops the identity service's anti-CSRF cookie: the flow on the page cannot be used.
    await context.clearCookies({ name: /^csrf_token/ });
    const before = answers.length;
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 }).catch(async (error: unknown) => {
      // What the identity service answered, and where the page stopped: the failure explains itself.
      const seen = answers
        .slice(before)
        .map((r) => `${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
      const text = await page
        .locator('body')
        .innerText()
        .catch(() => '');
      throw new Error(
        `not at /research (${page.url()}); answers: ${seen.join(', ')}; page: ${text.slice(0, 300)}`,
        {
          cause: error,
        },
      );
    });
    await page.getByText(user.email).first().waitFor();
    const after = answers.slice(before);
    const submits = after.filter((r) => r.request().method() === 'POST');
    // The old flow was refused, a fresh one was made, and the same password was sent to it: no retyping.
    expect(submits[0]?.status()).toBe(403);
    expect(after.some((r) => r.url().includes('/self-service/login/browser') && r.status() === 200)).toBe(
      true,
    );
    // The fresh flow accepted it: 422 browser_location_change_required on to the authorization server.
    expect(submits.at(-1)?.status()).toBe(422);
    expect(submits[0]?.request().postDataJSON()).toMatchObject({
      identifier: user.email,
      password: user.password,
    });
    expect(submits.at(-1)?.request().postDataJSON()).toMatchObject({
      identifier: user.email,
      password: user.password,
    });
    await context.close();
  });

  it('Back at every recovery step, and a recovery flow replayed after its code was used, show a Password step that works', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    const used = await recoverToPasswordStep(page, urls, user);
    await expectUsableStep(page, 'Change your password', 'New password', 'recovery: password');
    // Back: the recovery page again; the code already signed the person in, so the reset goes on.
    await page.goBack();
    await expectUsableStep(page, 'Change your password', 'New password', 'recovery: back once');
    await page.goBack();
    await expectUsableStep(page, 'Change your password', 'New password', 'recovery: back twice');
    // The spent flow's address again (history, a bookmark, another tab): on to a new Password step.
    await page.goto(`${urls.platform}/account/forgot-password?flow=${used}`);
    await expectUsableStep(page, 'Change your password', 'New password', 'replayed recovery flow');
    expect(new URL(page.url()).searchParams.get('profileFlow')).toBeTruthy();
    const newPassword = `Replayed-${Date.now()}!x`;
    await setNewPassword(page, newPassword);
    await context.close();
    const fresh = await browser.newPage();
    await signInWithPassword(fresh.page, urls, { email: user.email, password: newPassword });
    await fresh.context.close();
  });

  it('Back at every login step (Email, Password, 2FA) shows a heading and a usable form', async () => {
    const user = await createUser(urls);
    const setup = await browser.newPage();
    await signInWithPassword(setup.page, urls, user);
    const secret = await setUpSecondFactor(setup.page, urls.platform);
    await setup.context.close();

    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await expectUsableStep(page, 'Welcome', 'Email', 'login: email');
    await enterEmail(page, user.email);
    await expectUsableStep(page, 'Enter password', 'Password', 'login: password');
    // Steps are not history entries: Back reloads the login page, which shows the step the person is at.
    await page.goBack();
    await expectUsableStep(page, 'Enter password', 'Password', 'login: back from password');
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await expectUsableStep(page, 'Enter your 2FA code', '2FA code', 'login: 2FA');
    await page.goBack();
    await expectUsableStep(page, 'Enter your 2FA code', '2FA code', 'login: back from 2FA');
    // The next window's code: the set-up just spent this window's, and a code is accepted once.
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret, new Date(Date.now() + 30_000)));
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });
});
