import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SAML_IDP_DEMO_PASSWORD, type SamlIdpVariant } from '@acme/dev';
import { samlText } from '../services/identity/src/strategies/saml/saml-login.ts';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { adminJson } from './fixtures.ts';
import { landOnResearch, signInAtProvider, walkToProvider } from './journeys.ts';

// SAML 2.0 single sign-on through Initech's IdP stand-in (seeded: Initech, initech.test, provider
// initech), end to end in a browser: the Email step, the IdP's own page, its auto-submitting POST to
// our ACS, the same-site finish, and the app. The stand-in's switch makes its next answer broken.

/**
 * From the front door to Initech's IdP (its page with Email, Password and Sign in) and signed in
 * there; `variant` breaks the answer it sends.
 */
async function viaIdp(page: Page, urls: SystemUrls, email: string, variant?: SamlIdpVariant): Promise<void> {
  const idp = `${urls.samlIdp}/sso`;
  await walkToProvider(page, urls, email, idp);
  if (variant) {
    const res = await fetch(`${urls.samlIdp}/test/variant`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ variant }),
    });
    expect(res.status).toBe(200);
  }
  await signInAtProvider(page, idp, { email, password: SAML_IDP_DEMO_PASSWORD });
}

/** Whether the browser holds an identity session. */
async function whoamiStatus(page: Page, urls: SystemUrls): Promise<number> {
  const res = await page.request.get(`${urls.identityPublic}/sessions/whoami`, {
    headers: { accept: 'application/json' },
  });
  return res.status();
}

describe('SAML single sign-on (Initech), end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('milton signs in through the SAML IdP and reaches /research, without a password in our app', async () => {
    const { context, page } = await browser.newPage();
    await viaIdp(page, urls, 'milton@initech.test');
    await landOnResearch(page, urls, 'milton@initech.test');
    const session = await page.request.get(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    const body = (await session.json()) as {
      authentication_methods: { method: string; provider?: string }[];
    };
    expect(body.authentication_methods).toEqual([
      expect.objectContaining({ method: 'saml', provider: 'initech' }),
    ]);
    await context.close();
  });

  it('peter is created just in time at his first SAML sign-in', async () => {
    const { context, page } = await browser.newPage();
    await viaIdp(page, urls, 'peter@initech.test');
    await landOnResearch(page, urls, 'peter@initech.test');
    const { users } = await adminJson<{ users: { email: string }[] }>(`${urls.usersAdmin}/admin/users`);
    expect(users.map((u) => u.email)).toContain('peter@initech.test');
    await context.close();
  });

  const broken: [SamlIdpVariant, string][] = [
    ['unsigned', samlText.signature],
    ['wrong-certificate', samlText.signature],
    ['wrapped', samlText.signature],
    ['expired', samlText.expired],
    ['wrong-audience', samlText.audience],
    ['replayed', samlText.in_response_to],
  ];
  it.each(broken)(
    'a %s answer is refused with a clear message on the sign-in page, and no session',
    async (variant, message) => {
      const { context, page } = await browser.newPage();
      await viaIdp(page, urls, 'milton@initech.test', variant);
      await page.waitForURL(/\/account\/login\?flow=/, { timeout: 30_000 });
      await page.getByText(message).waitFor({ timeout: 30_000 });
      expect(await whoamiStatus(page, urls)).toBe(401);
      expect(page.url().startsWith(`${urls.platform}/research`)).toBe(false);
      if (variant === 'unsigned') expect(await seriousViolations(page)).toEqual([]);
      await context.close();
    },
  );
});
