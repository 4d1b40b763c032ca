import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser, organisationWithMember } from './fixtures.ts';
import { submitPassword } from './journeys.ts';

// The eight applications, the access guard and the welcome page, in a real browser against the
// whole system. (The m365-on-Platform unauthorised-mode page is in m365.e2e.ts, beside the
// Microsoft 365 sign-ins it starts from.)

describe('applications, access guard and welcome page, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a password user of an organisation without a subscription lands on the welcome page, and can log out', async () => {
    const user = await organisationWithMember(urls, { products: [], subscriptionStatus: 'not_subscribed' });
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.platform}/`);
    await page.waitForURL(/\/account\/login/);
    await submitPassword(page, user);

    await page.waitForURL(`${urls.platform}/welcome`, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome to Platform' }).waitFor();
    expect(await page.getByText('Your organisation does not have a subscription yet').isVisible()).toBe(true);
    expect(await page.getByText(user.email).first().isVisible()).toBe(true);
    const offer = page.getByRole('link', { name: 'Subscribe to the offer' });
    expect(await offer.getAttribute('href')).toMatch(/^http:\/\/localhost:\d+\/$/);
    expect(await page.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
      'mailto:support@acme.test',
    );
    expect(await page.getByRole('alert').count()).toBe(0);

    await page.getByRole('link', { name: 'Log out' }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    expect((await context.cookies(urls.platform)).find((c) => c.name === 'oauth2_token')).toBeUndefined();
    await context.close();
  });

  it('a user whose organisation lacks MAGIC gets the product Access Denied page on MAGIC', async () => {
    const user = await organisationWithMember(urls, {
      products: ['Platform'],
      subscriptionStatus: 'subscribed',
    });
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.magic}/`);
    await page.waitForURL(`${urls.magic}/account/login`);
    await submitPassword(page, user);

    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    await page
      .getByText(
        'You are not authorised to access product MAGIC. Please contact support@acme.test for support.',
      )
      .waitFor();
    expect(await page.getByTestId('token-ext').count()).toBe(0);

    // The same user is let into Platform, whose product the organisation has.
    await page.goto(`${urls.platform}/research`);
    await page.getByTestId('token-ext').waitFor({ timeout: 30_000 });
    expect(await page.getByText(user.email).first().isVisible()).toBe(true);
    await context.close();
  });

  it('a sign-in started on dashboard ends back on dashboard', async () => {
    const user = await createUser(urls);
    const dashboard = urls.apps.dashboard;
    const { context, page } = await browser.newPage();
    await page.goto(`${dashboard}/`);
    await page.waitForURL(`${dashboard}/account/login`);
    await submitPassword(page, user);

    await page.waitForURL(`${dashboard}/research`, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'dashboard · research' }).waitFor();
    expect(await page.getByText(user.email).first().isVisible()).toBe(true);
    const ext = JSON.parse((await page.getByTestId('token-ext').textContent()) ?? '{}');
    expect(ext).toMatchObject({ user: { authenticationMode: 'ory' }, subscriptionStatus: 'subscribed' });
    await context.close();
  });
});
