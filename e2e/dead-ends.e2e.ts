import { randomBytes } from 'node:crypto';
import type { BrowserContext, Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { adminJson, invite } from './fixtures.ts';
import { enterEmail, openLogin } from './journeys.ts';

// Issue 21, items 1–3: no dead ends. The Terms of Service and Privacy Notice are real pages, the SSO
// step has a way out, and a Microsoft 365 address never falls back silently to an empty Email step.

const CONTOSO_PASSWORD = 'Contoso-Demo-2026!';

async function expectNoSeriousViolations(page: Page, screen: string, include?: string): Promise<void> {
  expect((await seriousViolations(page, include)).map((v) => `${screen}: ${v}`)).toEqual([]);
}

/** The document page: its title, its version and the sample-text notice. */
async function expectDocument(page: Page | Frame, title: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title }).waitFor({ timeout: 30_000 });
  expect(await page.getByTestId('document-version').textContent()).toBe(
    'Version 2026-01, effective 2026-01-01',
  );
  expect(await page.getByRole('complementary', { name: 'Sample text' }).textContent()).toContain(
    'not a real agreement',
  );
}

/** Clicks a link that opens a new tab or window and returns that page once its document has loaded. */
async function openedBy(context: BrowserContext, click: () => Promise<void>): Promise<Page> {
  const opened = context.waitForEvent('page');
  await click();
  const page = await opened;
  await page.waitForLoadState();
  return page;
}

async function cookie(context: BrowserContext, urls: SystemUrls, name: string): Promise<string | undefined> {
  return (await context.cookies(urls.platform)).find((c) => c.name === name)?.value;
}

/** Cookies are per host (not per port): one write reaches every application on localhost. */
async function setCookies(context: BrowserContext, urls: SystemUrls, values: Record<string, string>) {
  const { hostname } = new URL(urls.platform);
  await context.addCookies(
    Object.entries(values).map(([name, value]) => ({ name, value, domain: hostname, path: '/' })),
  );
}

/** The MAGIC frame of the Teams host page. */
async function appFrame(page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector('iframe#app')).contentFrame();
  if (!frame) throw new Error('the Teams host page has no app frame');
  return frame;
}

describe('no dead ends (issue 21)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  describe('1. Terms of Service and Privacy Notice', () => {
    it('a guest opens /account/terms and /account/privacy: versioned sample documents, no sign-in page', async () => {
      const { context, page } = await browser.newPage();
      await page.goto(`${urls.platform}/account/terms`);
      await expectDocument(page, 'Terms of Service');
      expect(page.url()).toBe(`${urls.platform}/account/terms`);
      await expectNoSeriousViolations(page, 'terms');

      await page.goto(`${urls.magic}/account/privacy`);
      await expectDocument(page, 'Privacy Notice');
      expect(page.url()).toBe(`${urls.magic}/account/privacy`);
      await expectNoSeriousViolations(page, 'privacy');

      // The user service's default URLs are these pages.
      const current = await adminJson<{ terms: { url: string }; privacy: { url: string } }>(
        `${urls.usersPublic}/terms/current`,
      );
      expect(new URL(current.terms.url).pathname).toBe('/account/terms');
      expect(new URL(current.privacy.url).pathname).toBe('/account/privacy');
      await context.close();
    });

    it('the Email step’s links open in a new tab; the typed address stays', async () => {
      const { context, page } = await browser.newPage();
      await openLogin(page, urls);
      await page.getByLabel('Email').fill('someone@acme.test');
      const terms = await openedBy(context, () =>
        page.getByRole('link', { name: 'Terms of Service' }).click(),
      );
      await expectDocument(terms, 'Terms of Service');
      const privacy = await openedBy(context, () =>
        page.getByRole('link', { name: 'Privacy Notice' }).click(),
      );
      await expectDocument(privacy, 'Privacy Notice');
      expect(page.url()).toMatch(/\/account\/login/);
      expect(await page.getByLabel('Email').inputValue()).toBe('someone@acme.test');
      await context.close();
    });

    it('the Terms step’s checkbox links open the documents; the ticked box stays ticked', async () => {
      const invited = await invite(urls);
      const { context, page } = await browser.newPage();
      await page.goto(invited.link);
      await page.getByRole('heading', { name: 'Set your password' }).waitFor({ timeout: 30_000 });
      const password = `Invited-${randomBytes(6).toString('hex')}!1`;
      await page.getByPlaceholder('Create password').fill(password);
      await page.getByPlaceholder('Re-enter password').fill(password);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('button', { name: 'Skip for now' }).click({ timeout: 30_000 });
      await page.getByRole('heading', { name: 'Accept the terms' }).waitFor({ timeout: 30_000 });

      const termsBox = page.getByLabel('I agree to the platform terms of service');
      await termsBox.check();
      const terms = await openedBy(context, () =>
        page.getByRole('link', { name: 'terms of service' }).click(),
      );
      await expectDocument(terms, 'Terms of Service');
      const privacy = await openedBy(context, () =>
        page.getByRole('link', { name: 'privacy policy' }).click(),
      );
      await expectDocument(privacy, 'Privacy Notice');
      // Following a link neither ticked nor cleared a box, and the step is still there.
      expect(await termsBox.isChecked()).toBe(true);
      expect(await page.getByLabel('I agree to the privacy policy').isChecked()).toBe(false);
      expect(await page.getByRole('heading', { name: 'Accept the terms' }).isVisible()).toBe(true);
      await context.close();
    });

    it('inside the Teams frame a document link opens a new window, and the frame stays', async () => {
      const { context, page } = await browser.newPage();
      await page.goto(`${urls.teamsHost}?user=megan@contoso.test&fail=resourceDisabled`);
      const frame = await appFrame(page);
      await frame.getByRole('heading', { name: 'Microsoft sign-in failed' }).waitFor({ timeout: 30_000 });
      const frameUrl = frame.url();
      const privacy = await openedBy(context, () =>
        frame.getByRole('link', { name: 'Privacy Notice' }).click(),
      );
      await expectDocument(privacy, 'Privacy Notice');
      // A window of its own (window.open with a size), not the frame navigating.
      expect(await privacy.evaluate(() => window.outerWidth)).toBe(720);
      expect(frame.url()).toBe(frameUrl);
      expect(await frame.getByRole('heading', { name: 'Microsoft sign-in failed' }).isVisible()).toBe(true);
      await context.close();
    });
  });

  describe('2. the SSO step has a way out', () => {
    it('Redirect loop detected: Try again reaches the provider; after 3 tries only Use another email and support', async () => {
      const { context, page } = await browser.newPage();
      await openLogin(page, urls);
      // More than 5 redirects already counted (a loop between us and the provider).
      await setCookies(context, urls, { sso_redirects: '6' });
      await enterEmail(page, 'hopper@globex.test');
      await page
        .getByRole('alert')
        .filter({ hasText: 'Redirect loop detected.' })
        .waitFor({ timeout: 30_000 });
      expect(await page.getByRole('button', { name: 'Use another email' }).isVisible()).toBe(true);
      await expectNoSeriousViolations(page, 'sso: redirect loop');

      // Try again: the count starts again and the browser goes to Globex's provider.
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), {
        timeout: 30_000,
      });
      expect(await cookie(context, urls, 'sso_redirects')).toBe('1');
      expect(await cookie(context, urls, 'sso_tries')).toBe('1');

      // The loop again, with the three tries used up.
      await setCookies(context, urls, { sso_redirects: '6', sso_tries: '3' });
      await page.goto(`${urls.platform}/account/login`);
      await page
        .getByRole('alert')
        .filter({ hasText: 'Redirect loop detected.' })
        .waitFor({ timeout: 30_000 });
      expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
        'mailto:support@acme.test',
      );
      await expectNoSeriousViolations(page, 'sso: redirect loop, no tries left');

      // Use another email: the email result and the SSO lock are gone; the Email step keeps the address.
      expect(await cookie(context, urls, 'sso_redirect_lock')).toBeDefined();
      await page.getByRole('button', { name: 'Use another email' }).click();
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      expect(await page.getByLabel('Email').inputValue()).toBe('hopper@globex.test');
      expect(await cookie(context, urls, 'email_verification_result')).toBeUndefined();
      expect(await cookie(context, urls, 'sso_redirect_lock')).toBeUndefined();
      await context.close();
    });

    it('back from the provider (Proceed view): Use another email leads to the Email step', async () => {
      const { context, page } = await browser.newPage();
      await openLogin(page, urls);
      await enterEmail(page, 'hopper@globex.test');
      await page.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), {
        timeout: 30_000,
      });
      await page.goto(`${urls.platform}/account/login`);
      await page.getByRole('button', { name: 'Proceed' }).waitFor({ timeout: 30_000 });
      await expectNoSeriousViolations(page, 'sso: proceed');
      await page.getByRole('button', { name: 'Use another email' }).click();
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      expect(await cookie(context, urls, 'email_verification_result')).toBeUndefined();
      expect(await cookie(context, urls, 'sso_redirect_lock')).toBeUndefined();
      await context.close();
    });
  });

  describe('3. a Microsoft 365 address', () => {
    it('on Platform: says Platform has no Microsoft 365 sign-in and links to MAGIC’s m365 login', async () => {
      const { context, page } = await browser.newPage();
      await openLogin(page, urls);
      await enterEmail(page, 'megan@contoso.test');
      await page.getByRole('heading', { name: 'Microsoft 365 sign-in' }).waitFor({ timeout: 30_000 });
      await page
        .getByText(
          'megan@contoso.test signs in with Microsoft 365, and Platform does not offer Microsoft 365 sign-in.',
        )
        .waitFor();
      expect(page.url()).toMatch(new RegExp(`^${urls.platform}/account/login`));
      await expectNoSeriousViolations(page, 'login: m365 unavailable (MAGIC)');
      await page.getByRole('link', { name: 'Sign in to MAGIC with Microsoft 365' }).click();
      await page.waitForURL(`${urls.magic}/account/m365-login`, { timeout: 30_000 });
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      await context.close();
    });

    it('on Platform, an organisation without MAGIC: the support contact, and Use another email', async () => {
      const domain = `m365-${randomBytes(4).toString('hex')}.test`;
      await adminJson(`${urls.usersAdmin}/admin/organisations`, {
        method: 'POST',
        body: JSON.stringify({
          name: `Tailspin ${domain}`,
          domains: [domain],
          products: ['Platform'],
          m365: true,
        }),
      });
      const { context, page } = await browser.newPage();
      await openLogin(page, urls);
      await enterEmail(page, `kim@${domain}`);
      await page.getByRole('heading', { name: 'Microsoft 365 sign-in' }).waitFor({ timeout: 30_000 });
      expect(await page.getByRole('link', { name: 'support@acme.test' }).getAttribute('href')).toBe(
        'mailto:support@acme.test',
      );
      expect(await page.getByRole('link', { name: /MAGIC/ }).count()).toBe(0);
      await expectNoSeriousViolations(page, 'login: m365 unavailable (support)');
      await page.getByRole('button', { name: 'Use another email' }).click();
      await page.getByRole('heading', { name: 'Welcome' }).waitFor();
      expect(await page.getByLabel('Email').inputValue()).toBe(`kim@${domain}`);
      await context.close();
    });

    it('on local (m365 allowed by default): its own m365 login signs Megan in', async () => {
      const { context, page } = await browser.newPage();
      await page.goto(`${urls.apps.local}/`);
      await page.waitForURL(/\/account\/login/);
      await enterEmail(page, 'megan@contoso.test');
      await page.waitForURL((url) => url.origin === urls.entra, { timeout: 30_000 });
      expect(await page.getByLabel('Email').inputValue()).toBe('megan@contoso.test');
      await page.getByLabel('Password').fill(CONTOSO_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(`${urls.apps.local}/research`, { timeout: 30_000 });
      const ext = JSON.parse((await page.getByTestId('token-ext').textContent()) ?? '{}') as {
        user?: { authenticationMode?: string };
      };
      expect(ext.user?.authenticationMode).toBe('m365');
      await context.close();
    });
  });
});
