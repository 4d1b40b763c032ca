import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import type { SystemUrls } from './browser.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { adminJson, invite } from './fixtures.ts';
import { enterEmail, openLogin } from './journeys.ts';
import { newestMail } from './mailbox.ts';

// Invitation onboarding (issue 5: the invitation onboarding screen, its rules and the invitation
// link): an admin invites, the link arrives by mail, the invited person sets a
// password, sets up or skips 2FA, accepts the terms, and lands on the platform.

async function revoke(urls: SystemUrls, invitationId: string): Promise<void> {
  await adminJson(`${urls.usersAdmin}/admin/invitations/${invitationId}/revoke`, {
    method: 'POST',
    body: '{}',
  });
}

const newPassword = () => `Invited-${randomBytes(6).toString('hex')}!1`;

/** Opens the invitation link: the code is submitted by itself and the Password step shows. */
async function openInvitation(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Set your password' }).waitFor({ timeout: 30_000 });
}

/** The Password step: the new-password form with the checklist and the onboarding placeholders. */
async function setPassword(page: Page, password: string): Promise<void> {
  await page.getByPlaceholder('Create password').fill(password);
  await page.getByPlaceholder('Re-enter password').fill(password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Set up 2FA' }).waitFor({ timeout: 30_000 });
}

/** The Terms step: Continue only once both boxes are ticked. */
async function acceptTermsStep(page: Page, title: string): Promise<void> {
  await page.getByRole('heading', { name: title }).waitFor({ timeout: 30_000 });
  const next = page.getByRole('button', { name: 'Continue' });
  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel('I agree to the platform terms of service').check();
  expect(await next.isDisabled()).toBe(true);
  await page.getByLabel('I agree to the privacy policy').check();
  expect(await next.isDisabled()).toBe(false);
  await next.click();
}

/**
 * After the terms the app goes to login, which completes the OAuth2 flow. Should the identity
 * service ask to confirm the password (a login challenge with an existing session), it is given.
 */
async function finishSignIn(page: Page, urls: SystemUrls, password: string): Promise<void> {
  const research = page.waitForURL(`${urls.platform}/research`, { timeout: 45_000 }).then(() => 'research');
  const confirm = page
    .getByRole('heading', { name: 'Password confirmation' })
    .waitFor({ timeout: 45_000 })
    .then(() => 'confirm');
  const first = await Promise.race([research, confirm.catch(() => research)]);
  if (first === 'confirm') {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await research;
  }
}

describe('invitation onboarding, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('an invited user sets a password, skips 2FA, accepts the terms, signs in and lands on /research', async () => {
    const invited = await invite(urls);
    const password = newPassword();
    const { context, page } = await browser.newPage();

    await openInvitation(page, invited.link);
    const steps = page.getByRole('list', { name: 'Onboarding steps' }).getByRole('listitem');
    expect(await steps.allTextContents()).toEqual(['Email', 'Password', '2FA', 'Terms']);
    expect(await steps.nth(1).getAttribute('aria-current')).toBe('step');
    // The code was submitted (once) and is no longer in the address bar.
    expect(page.url()).not.toContain('code=');
    const cookies = await context.cookies(urls.platform);
    const state = cookies.find((c) => c.name === 'onboarding_state');
    expect(JSON.parse(decodeURIComponent(state?.value ?? '{}'))).toMatchObject({ codeSubmitted: true });

    // The checklist keeps Continue disabled until the rules hold and both fields match.
    await page.getByPlaceholder('Create password').fill('short');
    expect(await page.getByRole('button', { name: 'Continue' }).isDisabled()).toBe(true);
    await setPassword(page, password);

    // 2FA can be skipped while the setup deadline lies ahead (a new invitation has 14 days).
    await page.getByRole('button', { name: 'Skip for now' }).click();
    await acceptTermsStep(page, 'Accept the terms');

    await finishSignIn(page, urls, password);
    await page.getByText(invited.email).first().waitFor();
    const after = await context.cookies(urls.platform);
    expect(after.find((c) => c.name === 'onboarding_state')).toBeUndefined();

    // The same link again, signed in: "already logged in" with its two links.
    await page.goto(invited.link);
    await page.getByRole('heading', { name: `You are already logged in as ${invited.email}` }).waitFor();
    expect(await page.getByRole('link', { name: 'here to proceed' }).isVisible()).toBe(true);
    expect(await page.getByRole('link', { name: 'here to logout' }).isVisible()).toBe(true);
    await page.getByRole('link', { name: 'here to proceed' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();

    // From a fresh browser the used link has expired, and the new password signs in.
    const fresh = await browser.newPage();
    await fresh.page.goto(invited.link);
    await fresh.page.getByRole('heading', { name: 'Link expired' }).waitFor({ timeout: 30_000 });
    await openLogin(fresh.page, urls);
    await enterEmail(fresh.page, invited.email);
    await fresh.page.getByLabel('Password').fill(password);
    await fresh.page.getByRole('button', { name: 'Continue' }).click();
    await fresh.page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await fresh.context.close();
  });

  it('an invited user sets up 2FA instead of skipping it, accepts the terms and lands on /research', async () => {
    const invited = await invite(urls);
    const password = newPassword();
    const { context, page } = await browser.newPage();

    await openInvitation(page, invited.link);
    await setPassword(page, password);

    const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.getByLabel('I have installed an authenticator app').check();
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret));
    await acceptTermsStep(page, 'Accept the terms');

    await finishSignIn(page, urls, password);
    await page.getByText(invited.email).first().waitFor();
    await context.close();

    // The second factor is real: a fresh sign-in asks for a code.
    const fresh = await browser.newPage();
    await openLogin(fresh.page, urls);
    await enterEmail(fresh.page, invited.email);
    await fresh.page.getByLabel('Password').fill(password);
    await fresh.page.getByRole('button', { name: 'Continue' }).click();
    await fresh.page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
    await fresh.page
      .getByLabel('2FA code')
      .pressSequentially(totpCode(secret, new Date(Date.now() + 30_000)));
    await fresh.page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await fresh.context.close();
  });

  it('a revoked invitation, an unknown link and a link without a code show "Link expired"', async () => {
    const invited = await invite(urls);
    await revoke(urls, invited.id);
    const { context, page } = await browser.newPage();
    const expectExpired = async () => {
      await page.getByRole('heading', { name: 'Link expired' }).waitFor({ timeout: 30_000 });
      expect(await page.getByText('Need a new invitation?').isVisible()).toBe(true);
      expect(await page.getByText(/^Please contact \S+@\S+ to get a new invitation\.$/).isVisible()).toBe(
        true,
      );
    };

    await page.goto(invited.link);
    await expectExpired();
    // Nothing was submitted for a revoked link: no session came of it.
    const whoami = await page.evaluate(
      async (identity) => (await fetch(`${identity}/sessions/whoami`, { credentials: 'include' })).status,
      urls.identityPublic,
    );
    expect(whoami).toBe(401);

    const unknown = new URL(invited.link);
    unknown.searchParams.set('flow', '00000000-0000-4000-8000-000000000000');
    await page.goto(unknown.toString());
    await expectExpired();

    const withoutCode = new URL(invited.link);
    withoutCode.searchParams.delete('code');
    await page.goto(withoutCode.toString());
    await expectExpired();
    await context.close();
  });

  it('a link superseded by a resent invitation has expired; the new link opens onboarding', async () => {
    const invited = await invite(urls);
    const first = await newestMail(urls, invited.email);
    await adminJson(`${urls.usersAdmin}/admin/invitations/${invited.id}/resend`, {
      method: 'POST',
      body: '{}',
    });
    const resent = await newestMail(urls, invited.email, first);
    const fresh = /https?:\/\/\S+\/account\/onboarding\?\S+/.exec(resent.text)?.[0];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(invited.link);

    const { context, page } = await browser.newPage();
    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Link expired' }).waitFor({ timeout: 30_000 });

    await openInvitation(page, fresh!);
    await context.close();
  });
});
