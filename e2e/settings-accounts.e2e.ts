import { randomBytes } from 'node:crypto';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { identityAdmin, invite } from './fixtures.ts';
import { UNLINK_PRIVILEGED_SECONDS } from './global-setup.ts';
import { onboardFromInvitation, reachGitLinkStep } from './journeys.ts';

// Issue 23: unlinking the source-code host from the account page (journey 5), and the account page
// of a Microsoft 365 person, who has no identity session.

async function expectNoSeriousViolations(page: Page, screen: string, include?: string): Promise<void> {
  expect((await seriousViolations(page, include)).map((v) => `${screen}: ${v}`)).toEqual([]);
}

/** Invitation onboarding of a source-code-host user, through the link at the host, to /research. */
async function onboardAndLink(page: Page, link: string, password: string, research: string): Promise<void> {
  await onboardFromInvitation(page, link, password);
  await linkAtHost(page, password);
  await page.waitForURL(research, { timeout: 45_000 });
}

/** The callback's link step (after a password confirmation, when the server asks for one). */
async function linkAtHost(page: Page, password: string): Promise<void> {
  await reachGitLinkStep(page, password);
  await page.getByRole('button', { name: 'Authenticate with GitHub' }).click();
  await page.waitForURL(/\/github\/login\/oauth\/authorize/, { timeout: 30_000 });
  await page.getByRole('button', { name: 'Authorize' }).click();
}

/** The MAGIC frame of the Teams host page. */
async function appFrame(page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector('iframe#app')).contentFrame();
  if (!frame) throw new Error('the Teams host page has no app frame');
  return frame;
}

describe('account page: linked accounts and Microsoft 365 people (issue 23)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a source-code-host user replaces the linked account from the account page: the password first when the sign-in is old, unlinked, then the next sign-in links another', async () => {
    const invited = await invite(urls, { isGitUser: true });
    const password = `Git-${randomBytes(6).toString('hex')}!1`;
    const { context, page } = await browser.newPage();
    await onboardAndLink(page, invited.link, password, `${urls.platform}/research`);
    // Every sign-in of this person happened before /research: once the privileged age has passed,
    // the unlink needs a fresh one (journey 5).
    const signedInBy = Date.now();

    await page.goto(`${urls.platform}/account/settings`);
    const stale = page.getByTestId('settings-linked-accounts');
    await stale.getByText('Your source-code host account is linked.').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(Math.max(0, signedInBy + (UNLINK_PRIVILEGED_SECONDS + 1) * 1000 - Date.now()));
    await stale.getByRole('button', { name: 'Replace' }).click();
    await page.getByRole('heading', { name: 'Password confirmation' }).waitFor({ timeout: 30_000 });
    await expectNoSeriousViolations(page, 'unlink: password confirmation');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${urls.platform}/account/settings`, { timeout: 30_000 });
    // Still linked: the refused unlink changed nothing.
    expect((await identityAdmin(urls).getIdentity(invited.identityId))?.traits?.onboarding).toMatchObject({
      gitProviderConnected: true,
    });

    const section = page.getByTestId('settings-linked-accounts');
    await section.getByText('Your source-code host account is linked.').waitFor({ timeout: 30_000 });
    await expectNoSeriousViolations(page, 'settings: linked account');
    // A source-code-host user counts as signed in only with a link: "Replace", not "Unlink".
    expect(await section.getByText(/replacing it unlinks this one/).isVisible()).toBe(true);
    await section.getByRole('button', { name: 'Replace' }).click();

    // Unlinked at the user service and in the identity's traits; the sign-in then asks for a new link.
    await linkAtHost(page, password);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 45_000 });
    const identity = await identityAdmin(urls).getIdentity(invited.identityId);
    expect(identity?.traits?.onboarding).toMatchObject({ gitProviderConnected: true });
    await context.close();
  });

  it('a Microsoft 365 person (no identity session) sees their name, organisation, connected apps and Microsoft account', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.teamsHost}?user=megan@contoso.test`);
    const frame = await appFrame(page);
    await frame.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    await frame.goto(`${urls.magic}/account/settings`);
    const person = frame.getByTestId('m365-person');
    await person.waitFor({ timeout: 30_000 });
    const text = await person.textContent();
    expect(text).toContain('Megan Bowen');
    expect(text).toContain('megan@contoso.test');
    expect(text).toContain('Contoso');
    await frame.getByRole('heading', { name: 'Connected apps' }).waitFor({ timeout: 30_000 });
    expect(await frame.getByRole('link', { name: 'Open your Microsoft account' }).getAttribute('href')).toBe(
      'https://myaccount.microsoft.com/',
    );
    // No identity session, so no settings flow and none of its sections.
    expect(await frame.getByRole('heading', { name: 'Password' }).count()).toBe(0);
    await expectNoSeriousViolations(page, 'settings: m365 person', 'iframe#app');
    await context.close();
  });
});
