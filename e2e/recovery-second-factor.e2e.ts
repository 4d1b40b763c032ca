import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterEmail, openLogin, signInWithPassword, submitPassword, setUpSecondFactor } from './journeys.ts';
import { codeIn, newestMail } from './mailbox.ts';

// Dead end: password recovery for a user with a second factor ended at "You are already signed in,
// so your password cannot be recovered here", because after the code the settings flow asks for
// the second factor (403, aal2 required).

describe('password recovery for a user with a second factor', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('after the code the user gives the 2FA code, changes the password, and the new password signs in', async () => {
    const user = await createUser(urls);
    const setup = await browser.newPage();
    await signInWithPassword(setup.page, urls, user);
    const secret = await setUpSecondFactor(setup.page, urls.platform);
    await setup.context.close();

    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByRole('link', { name: 'Forgot Password' }).click();
    await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
    const email = page.getByLabel('Email');
    if ((await email.inputValue()) !== user.email) await email.fill(user.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
    await page
      .getByPlaceholder('000000')
      .fill(codeIn(await newestMail(urls, user.email, undefined, /password recovery code/)));
    await page.getByRole('button', { name: 'Continue' }).click();

    // The second factor first (the setup's own time step is used up: the next one).
    await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret, new Date(Date.now() + 30_000)));

    await page.getByRole('heading', { name: 'Change your password' }).waitFor({ timeout: 30_000 });
    const newPassword = `Recovered-${Date.now()}!x`;
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await context.close();

    // The new password is accepted at the next sign-in, which then asks for the second factor.
    const fresh = await browser.newPage();
    await openLogin(fresh.page, urls);
    await submitPassword(fresh.page, { email: user.email, password: newPassword });
    await fresh.page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
    expect(fresh.page.url()).toContain('/account/login');
    await fresh.context.close();
  });
});
