import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { identityAdmin, invite } from './fixtures.ts';
import { onboardFromInvitation, reachGitLinkStep } from './journeys.ts';

// A source-code-host user links the work account during the callback's onboarding stepper
// (issue 5: the onboarding/callback stepper, the callback screen, the source-code-host completion).

describe('source-code-host link during callback onboarding, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('an invited git user is onboarded, a forged host code and a cancelled authorization show their message and restart the step, then the user links through the authorize page and lands on /research', async () => {
    const invited = await invite(urls, { isGitUser: true });
    const password = `Git-${randomBytes(6).toString('hex')}!1`;
    const { context, page } = await browser.newPage();
    // The invitation steps before the callback (the onboarding journeys cover them in detail).
    await onboardFromInvitation(page, invited.link, password);

    // Login completes the OAuth2 flow; the callback's stepper still owes the link step.
    const linkStep = await reachGitLinkStep(page, password);
    expect(page.url()).toContain('/account/callback');
    await page.getByText('Signing up as').waitFor();
    expect(await page.getByText(invited.email).isVisible()).toBe(true);

    // A code that was never issued for this session: the message shows and the step starts over.
    await page.goto(`${urls.platform}/account/callback?code=forged-host-code&state=forged-state`);
    await page
      .getByText(/Start again\.|No source-code-host connection/)
      .first()
      .waitFor({ timeout: 30_000 });
    await linkStep.waitFor({ timeout: 30_000 });

    // Cancelling on the host's authorize page: its error is shown and the step starts over.
    await page.getByRole('button', { name: 'Authenticate with GitHub' }).click();
    await page.waitForURL(/\/github\/login\/oauth\/authorize/, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByText('The user has denied your application access.').first().waitFor({ timeout: 30_000 });
    await linkStep.waitFor({ timeout: 30_000 });

    // The real thing: the host's authorize page, then back to the callback and on to /research.
    await page.getByRole('button', { name: 'Authenticate with GitHub' }).click();
    await page.waitForURL(/\/github\/login\/oauth\/authorize/, { timeout: 30_000 });
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 45_000 });
    await page.getByText(invited.email).first().waitFor();

    const identity = await identityAdmin(urls).getIdentity(invited.identityId);
    expect(identity?.traits?.onboarding).toMatchObject({ gitProviderConnected: true, tosAccepted: true });

    // Signed in again later, nothing is owed: straight to /research.
    await page.goto(`${urls.platform}/account/login`);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });
});
