import { describe, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterEmail, openLogin, signInWithPassword } from './journeys.ts';
import { codeIn, newestMail } from './mailbox.ts';

describe('password recovery, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a user recovers a forgotten password with the emailed code, then signs in with the new one', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();

    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByRole('link', { name: 'Forgot Password' }).click();

    await page.waitForURL(/\/account\/forgot-password/);
    await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
    const email = page.getByLabel('Email');
    if ((await email.inputValue()) !== user.email) await email.fill(user.email);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    const codeField = page.getByPlaceholder('000000');
    const code = codeIn(await newestMail(urls, user.email, undefined, /password recovery code/));
    await codeField.fill(code);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByRole('heading', { name: 'Change your password' }).waitFor({ timeout: 30_000 });
    const newPassword = `Recovered-${Date.now()}!x`;
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await context.close();

    // The new password works from a fresh browser.
    const fresh = await browser.newPage();
    await signInWithPassword(fresh.page, urls, { email: user.email, password: newPassword });
    await fresh.context.close();
  });
});
