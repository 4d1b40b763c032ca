import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { contrastViolations, seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { adminJson } from './fixtures.ts';
import { brokenWords, scrollsSideways } from './layout.ts';

// Every signed-in screen (the landing page, the account page and one of its sections with its menus
// open, the device and consent screens, every console section and a member's page) at 320, 768 and
// 1280 CSS px in English and at 320 and 1280 px in German (longer words: where layouts break), in
// light and dark mode: no horizontal scrolling (WCAG 1.4.10 Reflow; 1280 px at 200 % zoom is 640 CSS
// px, inside this range), no word broken inside where a line could hold it, and no serious or
// critical axe violation (contrast included). One signed-in browser per language (German: a de-DE
// browser, the person having no language setting of their own); each screen is loaded once and
// looked at in every combination, after a check that it is in that language (`<html lang>` and a
// text of that language's catalogue), so the German pass cannot pass on an English page.

const ADA = { email: 'ada@acme.test', password: 'Research-Demo-2026!' };
const SCHEMES = ['light', 'dark'] as const;
/** Screenshots for the note (not committed), when E2E_SCREENS names a folder: 320 and 1280 px. */
const SCREENS = process.env.E2E_SCREENS;

/**
 * What is wrong with the page as it is now, at every width and in both colour schemes: sideways
 * scrolling everywhere; every axe rule in light mode, its colour rules again in dark mode.
 */
async function layoutProblems(page: Page, name: string, widths: readonly number[]): Promise<string[]> {
  const found: string[] = [];
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of widths) {
      await page.setViewportSize({ width, height: 800 });
      const at = `${name} @${width} ${scheme}`;
      const sideways = await scrollsSideways(page);
      if (sideways) found.push(`${at}: ${sideways}`);
      if (scheme === 'light')
        for (const word of await brokenWords(page)) found.push(`${at}: a word broken inside (${word})`);
      const violations = scheme === 'light' ? await seriousViolations(page) : await contrastViolations(page);
      for (const violation of violations) found.push(`${at}: ${violation}`);
      if (SCREENS && width !== 768) {
        mkdirSync(SCREENS, { recursive: true });
        await page.screenshot({ path: `${SCREENS}/${name}-${width}-${scheme}.png`, fullPage: true });
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** Nothing is loading any more (the console's and the account page's own waits). */
async function settled(page: Page, loading: string): Promise<void> {
  await page.waitForFunction((text) => !document.body.innerText.includes(text), loading, {
    timeout: 30_000,
  });
}

/** A language's browser, the widths it is looked at, and the texts the journey finds its way by. */
interface Language {
  lang: 'en' | 'de';
  browserLocale: string;
  widths: readonly number[];
  text: {
    email: string;
    password: string;
    continue: string;
    signedInAs: string;
    accountMenu: RegExp;
    settings: string;
    backToPlatform: string;
    sectionsMenu: string;
    sessions: string;
    profile: string;
    signOut: string;
    device: string;
    consent: (app: string) => string;
    adminSections: string;
    console: string;
    loading: string;
  };
}

const LANGUAGES: readonly Language[] = [
  {
    lang: 'en',
    browserLocale: 'en-US',
    widths: [320, 768, 1280],
    text: {
      email: 'Email',
      password: 'Password',
      continue: 'Continue',
      signedInAs: 'Signed in as',
      accountMenu: /account menu/,
      settings: 'Account settings',
      backToPlatform: 'Back to Platform',
      sectionsMenu: 'Account settings sections',
      sessions: 'Sessions',
      profile: 'Profile',
      signOut: 'Sign out',
      device: 'Connect a device',
      consent: (app) => `Allow ${app} to sign you in?`,
      adminSections: 'Admin sections',
      console: 'Organisation admin',
      loading: 'Loading…',
    },
  },
  {
    lang: 'de',
    browserLocale: 'de-DE',
    widths: [320, 1280],
    text: {
      email: 'E-Mail',
      password: 'Passwort',
      continue: 'Weiter',
      signedInAs: 'Angemeldet als',
      accountMenu: /Kontomenü/,
      settings: 'Kontoeinstellungen',
      backToPlatform: 'Zurück zu Platform',
      sectionsMenu: 'Bereiche der Kontoeinstellungen',
      sessions: 'Sitzungen',
      profile: 'Profil',
      signOut: 'Abmelden',
      device: 'Gerät verbinden',
      consent: (app) => `Darf ${app} Sie anmelden?`,
      adminSections: 'Bereiche der Konsole',
      console: 'Verwaltung der Organisation',
      loading: 'Wird geladen…',
    },
  },
];

describe('signed-in screens, light and dark', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  for (const { lang, browserLocale, widths, text } of LANGUAGES) {
    describe(`in ${lang}, ${widths.join(', ')} px`, () => {
      // One browser context per language: signed in once at the platform (the identity session then
      // serves the consent screen), and at the admin application for the console.
      const session = { page: undefined as Page | undefined, close: async () => undefined as void };
      async function signedInPage(): Promise<Page> {
        if (!session.page) {
          const { context, page } = await browser.newPage({
            locale: browserLocale,
            viewport: { width: 1280, height: 800 },
          });
          session.page = page;
          session.close = () => context.close();
        }
        return session.page;
      }
      afterAll(() => session.close());
      const found: string[] = [];
      /** The screen is in this language (so the checks cannot pass on another's), then its layout. */
      const look = async (name: string, mark: Locator) => {
        const page = session.page!;
        await mark.first().waitFor({ timeout: 30_000 });
        expect(await page.locator('html').getAttribute('lang'), name).toBe(lang);
        found.push(...(await layoutProblems(page, `${lang}-${name}`, widths)));
      };
      /** The login page's Email and Password steps, in this language. */
      const submitPassword = async (page: Page) => {
        await page.getByLabel(text.email, { exact: true }).fill(ADA.email);
        await page.getByRole('button', { name: text.continue }).click();
        await page.getByLabel(text.password, { exact: true }).fill(ADA.password);
        await page.getByRole('button', { name: text.continue }).click();
      };

      it(
        'the landing page and the account page (whole, one section, its menus)',
        { timeout: 180_000 },
        async () => {
          const page = await signedInPage();

          // The platform: the landing page, the account page (opened from the landing page), a section.
          await page.goto(`${urls.platform}/`);
          await page.waitForURL(/\/account\/login/);
          await submitPassword(page);
          await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
          await page.getByRole('button', { name: text.accountMenu }).waitFor({ timeout: 30_000 });
          await look('research', page.getByText(text.signedInAs));
          await page.getByRole('link', { name: text.settings }).click();
          await page.getByRole('link', { name: text.backToPlatform }).waitFor({ timeout: 30_000 });
          await page.getByTestId('settings-sessions').waitFor({ timeout: 30_000 });
          await look('settings', page.getByRole('heading', { level: 1, name: text.settings }));
          await page.goto(`${urls.platform}/account/settings/sessions?from=platform`);
          await page.getByTestId('session-current').waitFor({ timeout: 30_000 });
          // The narrow screens' section menu and the person menu, open.
          await page.setViewportSize({ width: 320, height: 800 });
          await page
            .getByRole('button', { name: `${text.sectionsMenu}: ${text.sessions}`, exact: true })
            .click();
          await page.getByRole('dialog').getByRole('link', { name: text.profile }).waitFor();
          expect(await seriousViolations(page)).toEqual([]);
          await page.keyboard.press('Escape');
          await page.getByRole('button', { name: text.accountMenu }).click();
          await page.getByRole('menuitem', { name: text.signOut }).waitFor();
          expect(await seriousViolations(page)).toEqual([]);
          await page.keyboard.press('Escape');
          await look('settings-sessions', page.getByRole('heading', { level: 1, name: text.settings }));
          expect(found.splice(0)).toEqual([]);
        },
      );

      it('the device and consent screens', { timeout: 120_000 }, async () => {
        const page = session.page!;

        // The device screen (its code step) and another organisation's app's consent screen.
        await page.goto(`${urls.platform}/account/device`);
        await look('device', page.getByRole('heading', { name: text.device }));
        const appName = `Layouts ${randomBytes(3).toString('hex')}`;
        const client = await adminJson<{ client_id: string }>(`${urls.oauth2Admin}/admin/clients`, {
          method: 'POST',
          body: JSON.stringify({
            client_name: appName,
            grant_types: ['authorization_code'],
            response_types: ['code'],
            redirect_uris: [`${urls.platform}/layouts-callback`],
            token_endpoint_auth_method: 'client_secret_basic',
            scope: 'openid',
          }),
        });
        const authorize = new URL('/oauth2/auth', urls.oauth2Public);
        authorize.search = new URLSearchParams({
          client_id: client.client_id,
          response_type: 'code',
          redirect_uri: `${urls.platform}/layouts-callback`,
          scope: 'openid',
          state: randomBytes(12).toString('hex'),
          code_challenge: createHash('sha256')
            .update(randomBytes(32).toString('base64url'))
            .digest('base64url'),
          code_challenge_method: 'S256',
        }).toString();
        await page.goto(authorize.href);
        await look('consent', page.getByRole('heading', { name: text.consent(appName) }));
        expect(found.splice(0)).toEqual([]);
      });

      it('every console section and a member’s page', { timeout: 300_000 }, async () => {
        const page = await signedInPage();
        const title = page.getByRole('heading', { level: 1, name: text.console });

        // The admin application's console: every section ada (org-admin) may open.
        await page.goto(`${urls.apps.admin}/admin/members`);
        const sections = page.getByRole('navigation', { name: text.adminSections }).getByRole('link');
        // Signed in already (the platform's identity session) or asked for the password at the login page.
        const email = page.getByLabel(text.email, { exact: true });
        await sections.first().or(email).first().waitFor({ timeout: 30_000 });
        if (await email.isVisible()) {
          await submitPassword(page);
          await page.waitForURL((url) => !url.pathname.startsWith('/account/'), { timeout: 30_000 });
          await page.goto(`${urls.apps.admin}/admin/members`);
        }
        await sections.first().waitFor({ timeout: 30_000 });
        const hrefs = await sections.evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
        expect(hrefs.length).toBeGreaterThanOrEqual(9);
        for (const href of hrefs) {
          await page.goto(`${urls.apps.admin}${href}`);
          await page.locator('[aria-current="page"]').first().waitFor({ timeout: 30_000 });
          await settled(page, text.loading);
          await look(`admin${href.replaceAll('/', '-')}`, title);
        }
        // One member's page (from the list).
        await page.goto(`${urls.apps.admin}/admin/members`);
        await settled(page, text.loading);
        await page.locator('.console-table a').first().click();
        await page.waitForURL(/\/admin\/member\?id=/);
        await settled(page, text.loading);
        await look('admin-member', title);

        expect(found.splice(0)).toEqual([]);
      });
    });
  }
});
