import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { signInWithPassword, submitPassword, saveBackupCodes } from './journeys.ts';

const INVALID_CODE = 'The provided authentication code is invalid, please try again.';

describe('second factor, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a user sets up 2FA from /account/mfa-setup, logs out, and signs in again with a code; a wrong code shows the error', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await signInWithPassword(page, urls, user);

    await page.goto(`${urls.platform}/account/mfa-setup`);
    const install = page.getByLabel('I have installed an authenticator app');
    await install.waitFor();
    const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.getByRole('img', { name: 'Authenticator app QR code' }).getAttribute('src')).toMatch(
      /^data:image\/png;base64,/,
    );
    await install.check();
    // The six cells are one real input; typing the sixth digit submits.
    const codeInput = page.getByLabel('2FA code');
    expect(await codeInput.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await codeInput.getAttribute('inputmode')).toBe('numeric');
    await codeInput.pressSequentially(totpCode(secret));
    await saveBackupCodes(page);
    await page.getByRole('heading', { name: '2FA', exact: true }).waitFor({ timeout: 30_000 });
    await page
      .getByText(
        "You've successfully added the product Platform to your 2FA app. Your account is now extra secure.",
      )
      .waitFor();
    await page.getByRole('button', { name: 'Return to the product Platform' }).waitFor();

    // Log out, then sign in again: the password is no longer enough.
    await page.goto(`${urls.platform}/account/logout`);
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await submitPassword(page, user);
    await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });

    // A code from far in the past is wrong.
    const wrong = totpCode(secret, new Date(Date.now() - 10 * 60_000));
    await page.getByLabel('2FA code').pressSequentially(wrong);
    await page.getByText(INVALID_CODE).first().waitFor();

    // The next time step's code: the setup's own code was already used once.
    await page.getByLabel('2FA code').fill('');
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret, new Date(Date.now() + 30_000)));
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();
    await context.close();
  });
});
