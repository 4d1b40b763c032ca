import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser, identityAdmin } from './fixtures.ts';
import { openLogin, submitPassword, saveBackupCodes } from './journeys.ts';

// Authenticated means a second factor once the grace period is over: past the second-factor grace
// period (onboarding.mfaSetupDeadline), a password
// session without a second factor is not authenticated — the user service refuses the consent, and the
// login screen asks for a 2FA set-up before the platform can be reached.
describe('second-factor grace period, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a user past the deadline must set up 2FA at sign-in, then reaches the platform', async () => {
    const user = await createUser(urls);
    const patched = await identityAdmin(urls).patchIdentity(user.identityId, [
      { op: 'replace', path: '/traits/onboarding/mfaSetupDeadline', value: '2020-01-01T00:00:00.000Z' },
    ]);
    expect(patched?.traits?.onboarding).toMatchObject({ mfaSetupDeadline: '2020-01-01T00:00:00.000Z' });

    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await submitPassword(page, user);

    // No tokens yet: the 2FA set-up, without "Skip for now".
    const install = page.getByLabel('I have installed an authenticator app');
    await install.waitFor({ timeout: 30_000 });
    expect(page.url()).toContain('/account/login');
    expect(await page.getByText('Skip for now').count()).toBe(0);
    const cookies = await context.cookies(urls.platform);
    expect(cookies.find((c) => c.name === 'oauth2_token')).toBeUndefined();

    const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
    await install.check();
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret));
    await saveBackupCodes(page);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();
    await context.close();
  });
});
