import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterCredentials, enterEmail, openLogin } from './journeys.ts';
import { hold } from './screens.ts';

const WRONG_CREDENTIALS =
  'The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.';

describe('password sign-in, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('a new user signs in with email and password, stays signed in on reload, and logs out', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();

    await page.goto(`${urls.platform}/`);
    await page.waitForURL(/\/account\/login/);
    // Waits as long as a loaded machine needs to render it (expect.poll gives up after 1 s).
    await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout: 30_000 });

    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Enter password' }).waitFor();
    expect(await page.getByText('Logging in as').isVisible()).toBe(true);

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();

    const cookies = await context.cookies(urls.platform);
    const token = cookies.find((c) => c.name === 'oauth2_token');
    expect(token, 'the OAuth2 token is kept in the oauth2_token cookie').toBeDefined();
    expect(token?.sameSite).toBe('Lax');

    await page.reload();
    await page.waitForURL(`${urls.platform}/research`);
    await page.getByText(user.email).first().waitFor();

    await page.getByRole('link', { name: /log ?out/i }).click();
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    const after = await context.cookies(urls.platform);
    expect(after.find((c) => c.name === 'oauth2_token')).toBeUndefined();

    // Signed out for real: the platform page sends us back to sign in.
    await page.goto(`${urls.platform}/research`);
    await page.waitForURL(/\/account\/login/);
    await context.close();
  });

  it('a wrong password shows the error and the user can try again', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await openLogin(page, urls);
    await enterEmail(page, user.email);
    await page.getByLabel('Password').fill('not-the-password-1!');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(WRONG_CREDENTIALS, { exact: true }).waitFor();
    expect(page.url()).toContain('/account/login');

    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });

  // The login route's page carries the Email step; the app must take those nodes over, not make
  // new ones: a replacement is a later, larger paint, which becomes the page's largest contentful
  // paint and waits for the whole script (Lighthouse's LCP on the mobile preset). The page comes in
  // the reader's language (their setting as this browser keeps it, else the browser's), so a German
  // reader's card is German from the first paint and the app's first render matches it.
  const readers = [
    { reader: 'an English browser', browserLocale: 'en-US', setting: null, lang: 'en', heading: 'Welcome' },
    { reader: 'a German browser', browserLocale: 'de-DE', setting: null, lang: 'de', heading: 'Willkommen' },
    {
      reader: 'an English browser whose person chose German',
      browserLocale: 'en-US',
      setting: 'de',
      lang: 'de',
      heading: 'Willkommen',
    },
  ] as const;
  for (const { reader, browserLocale, setting, lang, heading } of readers)
    it(`the app takes over the pre-rendered Email step node for node, so its first paint stays the largest (${reader})`, async () => {
      const user = await createUser(urls);
      const { context, page } = await browser.newPage({ locale: browserLocale });
      if (setting)
        await context.addCookies([
          { name: 'locale', value: encodeURIComponent(JSON.stringify(setting)), url: urls.platform },
        ]);
      await page.addInitScript(() => {
        const seen = window as unknown as {
          firstNodes: Element[];
          firstLang: string;
          firstHeading: string;
          paints: (Element | null)[];
        };
        seen.firstNodes = [];
        seen.paints = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as (PerformanceEntry & { element: Element | null })[])
            seen.paints.push(entry.element);
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        document.addEventListener('DOMContentLoaded', () => {
          seen.firstNodes = Array.from(document.querySelectorAll('#root *'));
          seen.firstLang = document.documentElement.lang;
          seen.firstHeading = document.querySelector('#root h1')?.textContent ?? '';
        });
      });
      await page.goto(`${urls.platform}/account/login`);
      await page.getByRole('heading', { name: heading }).waitFor({ timeout: 30_000 });
      // The app has started and the Email step takes typing (the pre-rendered field is disabled).
      await page.locator('input[name="email"]:not([disabled])').waitFor({ timeout: 30_000 });
      const outcome = await page.evaluate(() => {
        const seen = window as unknown as {
          firstNodes: Element[];
          firstLang: string;
          firstHeading: string;
          paints: (Element | null)[];
        };
        return {
          lang: seen.firstLang,
          heading: seen.firstHeading,
          preRendered: seen.firstNodes.length,
          replaced: seen.firstNodes.filter((node) => !node.isConnected).length,
          laterPaints: seen.paints.filter((node) => node !== null && !seen.firstNodes.includes(node)).length,
        };
      });
      expect(outcome.lang, 'the page arrives in the reader’s language').toBe(lang);
      expect(outcome.heading, 'the page arrives in the reader’s language').toBe(heading);
      expect(outcome.preRendered, 'the page arrives with the Email step').toBeGreaterThan(10);
      expect(outcome.replaced, 'pre-rendered nodes the app replaced').toBe(0);
      expect(outcome.laterPaints, 'largest paints of nodes the page did not carry').toBe(0);
      expect(await page.evaluate(() => document.documentElement.lang)).toBe(lang);
      // Taken over, not only kept: the step works as the app's own.
      if (lang === 'en') await enterCredentials(page, urls, user);
      else {
        await page.getByLabel('E-Mail').fill(user.email);
        await page.getByRole('button', { name: 'Weiter' }).click();
        await page.getByRole('heading', { name: 'Passwort eingeben' }).waitFor({ timeout: 30_000 });
      }
      await context.close();
    });

  it('a first visit’s login page asks for the app’s code only after its first paint, and the app then starts and signs in', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.platform}/account/login`);
    await page.locator('input[name="email"]:not([disabled])').waitFor({ timeout: 30_000 });
    const timing = await page.evaluate(() => {
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      const entry = performance
        .getEntriesByType('resource')
        .find((r) => /\/account\/assets\/index-[\w-]+\.js$/.test(r.name));
      return { paint: paint?.startTime ?? null, entry: entry?.startTime ?? null };
    });
    expect(timing.paint, 'the first paint was reported').not.toBeNull();
    expect(timing.entry, 'the entry module was requested').not.toBeNull();
    expect(timing.entry!, 'the entry module is requested after the first paint').toBeGreaterThanOrEqual(
      timing.paint!,
    );
    await enterCredentials(page, urls, user);
    await context.close();
  });

  // The page the authorization server sends back checks its challenge with the flow it creates; the
  // Email step takes typing before that check answers, and a stale challenge then restarts the
  // authorization. An address continued in that window was looked up on the page that left: the
  // next page showed an empty Email step, and the sign-in stopped there (nothing typed was kept).
  it('an address continued while a stale challenge is still being checked crosses the new authorization: the Password step follows, no second click', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    // The check and the address's lookup are held: the person is faster than both.
    const startsWith = (prefix: string) => (url: URL) => url.href.startsWith(prefix);
    const releaseCheck = await hold(page, startsWith(`${urls.identityPublic}/self-service/login/browser`));
    const releaseLookup = await hold(page, startsWith(`${urls.usersPublic}/login/config`));
    await page.goto(`${urls.platform}/account/login?login_challenge=stale-challenge-that-does-not-exist`);
    await enterEmail(page, user.email);
    const restarted = page.waitForRequest((r) => r.url().startsWith(`${urls.oauth2Public}/oauth2/auth`));
    await releaseCheck();
    await restarted;
    await releaseLookup();
    await page.getByRole('heading', { name: 'Enter password' }).waitFor({ timeout: 30_000 });
    expect(await page.getByText(user.email).first().isVisible(), 'the address is kept').toBe(true);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });

  it('a stale login_challenge recovers without a dead end', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    // The stale challenge is found out before the user types: the app starts a fresh authorization.
    const restarted = page.waitForRequest((r) => r.url().startsWith(`${urls.oauth2Public}/oauth2/auth`));
    await page.goto(`${urls.platform}/account/login?login_challenge=stale-challenge-that-does-not-exist`);
    await restarted;
    await page.waitForURL(`${urls.platform}/account/login`);
    await page.getByRole('heading', { name: 'Welcome' }).waitFor();
    await enterCredentials(page, urls, user);
    await context.close();
  });
});
