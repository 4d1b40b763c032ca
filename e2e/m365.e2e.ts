import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { adminJson } from './fixtures.ts';

// Microsoft 365 sign-in in MAGIC with the real MSAL and teams-js against the Entra, Graph and Teams
// host stand-ins. Sign-in times are printed (console) for the note; nothing here asserts a duration.

const CONTOSO_PASSWORD = 'Contoso-Demo-2026!';
const FABRIKAM_PASSWORD = 'Fabrikam-Demo-2026!';

/** Continue on the m365 login, then the Entra stand-in's page in the popup. */
async function signInByPopup(page: Page, email: string, password: string): Promise<void> {
  const popupOpened = page.waitForEvent('popup');
  await page.getByRole('button', { name: 'Continue' }).click();
  const popup = await popupOpened;
  await popup.getByLabel('Email').fill(email);
  await popup.getByLabel('Password').fill(password);
  await popup.getByRole('button', { name: 'Sign in' }).click();
}

async function openM365Login(page: Page, magic: string): Promise<void> {
  await page.goto(`${magic}/account/m365-login`);
  await page.getByRole('heading', { name: 'Welcome' }).waitFor();
}

/** The MAGIC frame of the Teams host page. */
async function appFrame(page: Page): Promise<Frame> {
  const handle = await page.waitForSelector('iframe#app');
  const frame = await handle.contentFrame();
  if (!frame) throw new Error('the Teams host page has no app frame');
  return frame;
}

function ext(text: string | null): { user?: { authenticationMode?: string } } {
  return JSON.parse(text ?? '{}') as { user?: { authenticationMode?: string } };
}

describe('Microsoft 365 sign-in, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('Megan signs in to MAGIC by popup, lands on the initial page with authenticationMode m365, and logs out of Microsoft', async () => {
    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    const started = Date.now();
    await signInByPopup(page, 'megan@contoso.test', CONTOSO_PASSWORD);
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    const claims = ext(await page.getByTestId('token-ext').textContent());
    console.warn(`[m365] popup sign-in (Continue → initial page): ${Date.now() - started} ms`);
    expect(claims.user?.authenticationMode).toBe('m365');
    const cookies = await context.cookies(urls.magic);
    expect(cookies.find((c) => c.name === 'oauth2_token')).toBeDefined();

    // Logout signs out of the Microsoft account (Entra's logout), then the m365 login.
    const entraLogout = page.waitForRequest(
      (r) => r.url().startsWith(`${urls.entra}/`) && r.url().includes('/oauth2/v2.0/logout'),
    );
    await page.getByRole('link', { name: /log ?out/i }).click();
    await entraLogout;
    // Entra returns to the post-logout address with MSAL's state appended.
    await page.waitForURL(new RegExp(`^${urls.magic}/account/m365-login(\\?|$)`), { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    expect((await context.cookies(urls.magic)).find((c) => c.name === 'oauth2_token')).toBeUndefined();
    await context.close();
  });

  it("from MAGIC's front door: the email step sends an m365 address to the m365 login, which signs in by redirect", async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.magic}/`);
    await page.waitForURL(/\/account\/login/);
    await page.getByLabel('Email').fill('megan@contoso.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    // autoContinue: a full-page redirect to Entra (no popup), then back through the bridge page.
    await page.waitForURL((url) => url.origin === urls.entra, { timeout: 30_000 });
    // The address typed on the email step is Entra's login hint.
    expect(await page.getByLabel('Email').inputValue()).toBe('megan@contoso.test');
    await page.getByLabel('Password').fill(CONTOSO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    expect(ext(await page.getByTestId('token-ext').textContent()).user?.authenticationMode).toBe('m365');
    await context.close();
  });

  it('Cancel in the popup returns to login', async () => {
    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Continue' }).click();
    const popup = await popupOpened;
    const closed = popup.waitForEvent('close');
    await popup.getByRole('button', { name: 'Cancel' }).click();
    await closed;
    await expect
      .poll(() => page.getByRole('button', { name: 'Continue' }).isEnabled(), { timeout: 30_000 })
      .toBe(true);
    expect(await page.getByRole('heading', { name: 'Welcome' }).isVisible()).toBe(true);
    expect(page.url()).toBe(`${urls.magic}/account/m365-login`);
    await context.close();
  });

  it('Diego (in Entra, not a MAGIC user) sees unauthorised-user, and his request is recorded', async () => {
    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    await signInByPopup(page, 'diego@contoso.test', CONTOSO_PASSWORD);
    await page.getByRole('heading', { name: 'Access not granted yet' }).waitFor({ timeout: 30_000 });
    expect(await page.getByText('We have passed your request').isVisible()).toBe(true);
    const { requests } = await adminJson<{ requests: { email: string; name: string }[] }>(
      `${urls.agentAdmin}/admin/unregistered-user-requests`,
    );
    expect(requests).toContainEqual(
      expect.objectContaining({ email: 'diego@contoso.test', name: 'Diego Siciliani' }),
    );
    expect((await context.cookies(urls.magic)).find((c) => c.name === 'oauth2_token')).toBeUndefined();
    await context.close();
  });

  it('a Fabrikam user (organisation not subscribed) sees subscription-required', async () => {
    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    await signInByPopup(page, 'alex@fabrikam.test', FABRIKAM_PASSWORD);
    await page.getByRole('heading', { name: 'Welcome, not connected' }).waitFor({ timeout: 30_000 });
    const link = page.getByRole('link', { name: 'Set up a subscription' });
    expect(await link.getAttribute('href')).toMatch(/^http/);
    // The tooltip shows on hover (and on keyboard focus).
    expect(await page.getByRole('tooltip').count()).toBe(0);
    await page.getByRole('button', { name: 'Who can subscribe?' }).hover();
    expect(await page.getByRole('tooltip').textContent()).toContain('Owner or Contributor');
    await context.close();
  });

  it('an m365 user on Platform (which allows only ory) gets the unauthorised-mode page', async () => {
    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    await signInByPopup(page, 'megan@contoso.test', CONTOSO_PASSWORD);
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    expect(ext(await page.getByTestId('token-ext').textContent()).user?.authenticationMode).toBe('m365');
    // The same token (the cookie is per host, not per port) opens a Platform page.
    await page.goto(`${urls.platform}/research`);
    await page
      .getByText(
        'You are not authorised to access Platform with Microsoft 365 sign-in. Log out, then sign in with email and password or single sign-on.',
      )
      .waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(`${urls.platform}/research`);
    expect(await page.getByTestId('token-ext').count()).toBe(0);
    await context.close();
  });

  it('Megan inside the Teams host page: signed in with the Teams token, kept in local storage; logout returns to m365 login with isTeams=1', async () => {
    const { context, page } = await browser.newPage();
    const started = Date.now();
    await page.goto(`${urls.teamsHost}?user=megan@contoso.test`);
    const frame = await appFrame(page);
    await frame.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    const claims = ext(await frame.getByTestId('token-ext').textContent());
    console.warn(`[m365] Teams sign-in (host page → initial page): ${Date.now() - started} ms`);
    expect(claims.user?.authenticationMode).toBe('m365');
    const stored = await frame.evaluate(() => ({
      token: window.localStorage.getItem('oauth2_token'),
      isTeams: window.localStorage.getItem('isTeams'),
    }));
    expect(JSON.parse(stored.token ?? '{}').accessToken).toMatch(/^ey/);
    expect(stored.isTeams).toBe('true');
    expect((await context.cookies(urls.magic)).find((c) => c.name === 'oauth2_token')).toBeUndefined();

    // getAuthToken will fail from now on, so that the page stays on the m365 login after logout.
    await page.selectOption('#fail', 'CancelledByUser');
    const backOnLogin = frame.waitForURL(`${urls.magic}/account/m365-login?isTeams=1`, { timeout: 30_000 });
    await frame.getByRole('link', { name: /log ?out/i }).click();
    await backOnLogin;
    await frame.getByText('CancelledByUser').waitFor();
    expect(await frame.evaluate(() => window.localStorage.getItem('oauth2_token'))).toBeNull();
    await context.close();
  });

  it('a getAuthToken failure in Teams shows the error and a retry', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.teamsHost}?user=megan@contoso.test&fail=resourceDisabled`);
    const frame = await appFrame(page);
    await frame.getByRole('heading', { name: 'Microsoft sign-in failed' }).waitFor({ timeout: 30_000 });
    expect(await frame.getByRole('alert').textContent()).toContain('resourceDisabled');
    await page.selectOption('#fail', '');
    await frame.getByRole('button', { name: 'Retry' }).click();
    await frame.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    await context.close();
  });

  // Set by the purchase journey below; the Unsubscribe journey after it ends that subscription.
  let fabrikamSubscriptionId: string | undefined;

  // Runs after the Fabrikam journey above: it subscribes Fabrikam.
  it('Fabrikam\'s Owner buys on the marketplace, lands on Final Step, ticks both boxes and reaches MAGIC; a replay of the link and a second purchase show "already subscribed"', async () => {
    const purchase = () =>
      adminJson<{ subscriptionId: string; token: string; landingUrl: string }>(
        `${urls.marketplace}/_dev/purchases`,
        {
          method: 'POST',
          body: JSON.stringify({ email: 'alex@fabrikam.test' }),
        },
      );
    const { context, page } = await browser.newPage();
    const first = await purchase();
    fabrikamSubscriptionId = first.subscriptionId;
    await page.goto(first.landingUrl);
    // No Microsoft account yet: the Final Step forces a redirect sign-in, which returns to the landing page.
    await page.waitForURL((url) => url.origin === urls.entra, { timeout: 30_000 });
    await page.getByLabel('Email').fill('alex@fabrikam.test');
    await page.getByLabel('Password').fill(FABRIKAM_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Final Step' }).waitFor({ timeout: 30_000 });
    await page.getByText('alex@fabrikam.test').waitFor();
    expect(await page.getByText('Signing up as').isVisible()).toBe(true);
    const continueButton = page.getByRole('button', { name: 'Continue' });
    expect(await continueButton.isDisabled()).toBe(true);
    const [terms, privacy] = await page.getByRole('checkbox').all();
    await terms!.check();
    expect(await continueButton.isDisabled()).toBe(true);
    await privacy!.check();
    await continueButton.click();
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    expect(ext(await page.getByTestId('token-ext').textContent()).user?.authenticationMode).toBe('m365');

    // A replay of the same landing-page link, and a second purchase: "already subscribed", nothing runs.
    const second = await purchase();
    for (const landingUrl of [first.landingUrl, second.landingUrl]) {
      await page.goto(landingUrl);
      await page.getByRole('heading', { name: 'Final Step' }).waitFor({ timeout: 30_000 });
      for (const box of await page.getByRole('checkbox').all()) await box.check();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page
        .getByRole('heading', { name: 'Welcome, organisation already subscribed' })
        .waitFor({ timeout: 30_000 });
    }
    await context.close();
  });

  // Runs after the purchase journey above: Fabrikam is subscribed, and the marketplace ends it.
  it('an Unsubscribe webhook, then the next sign-in shows subscription-required', async () => {
    if (!fabrikamSubscriptionId) throw new Error('the purchase journey did not run first');
    // The marketplace stand-in posts the signed webhook to the user service, as its Unsubscribe button does.
    const sent = await adminJson<{ status: number; body: unknown }>(
      `${urls.marketplace}/_dev/subscriptions/${fabrikamSubscriptionId}/webhook`,
      { method: 'POST', body: JSON.stringify({ action: 'Unsubscribe' }) },
    );
    expect(sent.status).toBe(200);

    const { context, page } = await browser.newPage();
    await openM365Login(page, urls.magic);
    await signInByPopup(page, 'alex@fabrikam.test', FABRIKAM_PASSWORD);
    await page.getByRole('heading', { name: 'Welcome, not connected' }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('link', { name: 'Set up a subscription' }).isVisible()).toBe(true);
    expect((await context.cookies(urls.magic)).find((c) => c.name === 'oauth2_token')).toBeUndefined();
    await context.close();
  });
});
