import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { moreScreens } from './screens-more.ts';
import { LANGUAGES, walkScreens } from './screens.ts';

// Accessibility bar, WCAG 2.2 AA (as accessibility.e2e.ts, beside which this file runs): the screens
// whose data is their own (a new person, organisation or SSO connection each, or tenants only read),
// so that they may be walked while the other file changes what it shares (self sign-up, Megan).

describe('accessibility (axe, WCAG 2.2 AA): recovery, device, security key, SSO loop, break-glass, access denied, console, Microsoft 365', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  // In a browser context of their own per language: the later steps of Forgot password, a device
  // denied or expired, a security key, Verify your email, the SSO redirect loop, break-glass, a
  // product's Access Denied page, the console's SSO test pop-up, and Microsoft 365's "not connected"
  // and "admin consent required" (screens-more.ts).
  for (const language of LANGUAGES) {
    it(
      `in ${language[0]}, no serious or critical violations at 320 and 1280 px, light and dark`,
      { timeout: 300_000 },
      async () => expect(await walkScreens(browser, urls, language, moreScreens)).toEqual([]),
    );
  }
});
