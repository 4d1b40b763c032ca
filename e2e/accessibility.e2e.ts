import { describe, expect, it } from 'vitest';
import { axeEverywhere } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { restScreens } from './screens-rest.ts';
import { LANGUAGES, remainingScreens, walkScreens } from './screens.ts';

// Accessibility bar: WCAG 2.2 AA, axe on every screen with 0 serious or critical violations.

describe('accessibility (axe, WCAG 2.2 AA)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  // The signed-out screens in both languages (a browser asking for each), at 320 and 1280 px, light
  // and dark; each is checked to be in its language before axe looks at it.
  for (const [lang, locale, texts] of LANGUAGES) {
    it(`the signed-out screens in ${lang} have no serious or critical violations at 320 and 1280 px, light and dark`, async () => {
      const { context, page } = await browser.newPage({ locale });
      const user = await createUser(urls);
      const heading = (name: string) => page.getByRole('heading', { name, exact: true }).waitFor();
      const screens: [string, () => Promise<void>][] = [
        [
          'login: email step',
          async () => {
            await page.goto(`${urls.platform}/`);
            // The Email step is painted before the authorization round trip (ADR 0021): check it
            // once the page has its login challenge and stays.
            await page.waitForURL(/login_challenge=/);
            await heading(texts.login.email.title);
          },
        ],
        [
          'login: password step',
          async () => {
            await page.locator('input[autocomplete^="username"]').fill(user.email);
            await page.getByRole('button', { name: texts.common.continue, exact: true }).click();
            await heading(texts.login.password.title);
          },
        ],
        [
          'forgot password',
          async () => {
            await page.goto(`${urls.platform}/account/forgot-password`);
            await heading(texts.forgotPassword.emailTitle);
          },
        ],
        [
          'email verification',
          async () => {
            await page.goto(`${urls.platform}/account/verification`);
            await heading(texts.verification.heading);
          },
        ],
        [
          'invitation: link expired',
          async () => {
            await page.goto(`${urls.platform}/account/onboarding`);
            await page.getByText(texts.onboarding.linkExpired).first().waitFor();
          },
        ],
        [
          'error page',
          async () => {
            // The identity service's error page (`id`): open to anyone; a bare /account/error is guarded.
            await page.goto(`${urls.platform}/account/error?id=unknown`);
            await page.getByRole('link', { name: texts.errorPage.backToLogin }).waitFor();
          },
        ],
      ];
      const found: string[] = [];
      for (const [name, open] of screens) {
        await open();
        expect(await page.locator('html').getAttribute('lang'), name).toBe(lang);
        found.push(...(await axeEverywhere(page, `${lang} ${name}`)));
      }
      expect(found).toEqual([]);
      await context.close();
    });
  }

  // Every other screen a person can reach, in both languages, one browser context each: the
  // signed-out screens of other ways in (Microsoft 365, the Teams frame, SSO, self sign-up,
  // invitation), then signed in (landing page, 2FA set-up, device and third-party consent), then the
  // second-factor steps of the next sign-in; then, in a browser of their own, the last ones
  // (screens-rest.ts): self sign-up refused for an address and closed, Microsoft 365's marketplace
  // Final Step (activating, "already subscribed") and a deactivated account (page and Teams), the
  // screens shown only on the way ("Signing you in…" of the login, consent, callback and Microsoft
  // 365 sign-in), the SSO test pop-up with the provider's answer, the GitHub link step of callback
  // onboarding (and its refusal), and a person's passkey (Password confirmation, the Email step while
  // the passkey signs in). These stay in one file, one after another: closing every organisation's
  // sign-up and deactivating Megan would change what the self sign-up and Teams screens show if they
  // ran at the same time. The screens that share nothing with them are accessibility-more.e2e.ts,
  // which runs beside this file.
  for (const language of LANGUAGES) {
    const [lang] = language;
    it(
      `every other screen in ${lang} has no serious or critical violations at 320 and 1280 px, light and dark`,
      { timeout: 600_000 },
      async () => expect(await walkScreens(browser, urls, language, remainingScreens)).toEqual([]),
    );
    it(
      `the last ones in ${lang} (sign-up refused and closed, marketplace Final Step, deactivated, screens on the way, SSO test answer, GitHub link, passkey) have no serious or critical violations at 320 and 1280 px, light and dark`,
      { timeout: 400_000 },
      async () => expect(await walkScreens(browser, urls, language, restScreens)).toEqual([]),
    );
  }
});
