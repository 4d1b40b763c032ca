import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startOrgIdp, type OrgIdp } from '@acme/dev';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { landOnResearch, signInAtProvider, walkToProvider } from './journeys.ts';
import { createOrgWithAdmin, signInToConsole } from './operator.ts';

// The console's Single sign-on section (issue 24), end to end: the operator's CLI creates a
// throwaway organisation and its org-admin; the org-admin sets up SSO in the admin application
// against an organisation IdP stand-in started here (with a person of that organisation's
// domain), Test connection and Test sign-in pass; then that person signs in by SSO.

/** The screenshot for the note, when E2E_SCREENS names a folder. */
const SCREENS = process.env.E2E_SCREENS;

describe('single sign-on set up in the admin console', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  let idp: OrgIdp | undefined;
  afterAll(async () => idp?.close());

  it("a throwaway organisation's org-admin sets up SSO, tests it, and a member of the domain signs in by SSO", async () => {
    const tag = randomBytes(4).toString('hex');
    const domain = `sso-${tag}.test`;
    const admin = { email: `admin@${domain}`, password: `Console-${tag}-2026!`, firstName: 'Olga' };
    const member = { email: `pat@${domain}`, password: `Pat-${tag}-2026!` };

    // The operator creates the organisation and its org-admin with the CLI.
    await createOrgWithAdmin(urls, { name: `SSO ${tag}`, domain }, admin);
    // The organisation's identity provider, extended with a person of its domain.
    idp = await startOrgIdp({
      port: 0,
      users: [{ email: member.email, password: member.password, givenName: 'Pat', familyName: 'Member' }],
    });

    const { page, context } = await browser.newPage();
    await signInToConsole(page, urls, admin, '/admin/sso');
    await page.getByRole('heading', { name: 'Single sign-on', level: 2 }).waitFor({ timeout: 30_000 });
    await page.getByText('No single sign-on provider is set up.').waitFor();
    expect(await seriousViolations(page)).toEqual([]);

    // The redirect URIs to register at the provider, as the console shows them.
    const signInUri = (await page.getByTestId('sso-redirect-sign-in').textContent())!;
    const testUri = (await page.getByTestId('sso-redirect-test').textContent())!;
    expect(signInUri).toBe(`${urls.identityPublic}/self-service/methods/oidc/callback/sso-${tag}`);
    expect(testUri).toBe(`${urls.apps.admin}/admin/sso/test-callback`);
    const clientSecret = randomBytes(16).toString('hex');
    idp.setClient({ clientId: `acme-${tag}`, clientSecret, redirectUris: [signInUri, testUri] });

    // The form, by keyboard where a person would type.
    await page.getByLabel('Issuer URL').fill(idp.issuer);
    await page.getByLabel('Client ID').fill(`acme-${tag}`);
    await page.getByLabel('Client secret', { exact: true }).fill(clientSecret);
    await page.getByLabel('Client secret', { exact: true }).press('Enter');
    await page.getByText('Provider saved. Single sign-on works from now on.').waitFor();
    // Written once: the secret field is empty again, and the page never shows the secret.
    expect(await page.getByLabel(/leave empty to keep/).inputValue()).toBe('');
    expect(await page.content()).not.toContain(clientSecret);

    // By keyboard: Tab from the Save button reaches Test connection.
    await page.getByRole('button', { name: 'Save provider' }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Test connection');
    await page.keyboard.press('Enter');
    await page.getByText('Every check passed.').waitFor({ timeout: 30_000 });
    const checks = await page
      .getByRole('region', { name: 'Connection' })
      .getByRole('listitem')
      .allTextContents();
    expect(checks).toHaveLength(7);
    for (const check of checks) expect(check).toMatch(/^Passed:/);

    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Test sign-in', exact: true }).click();
    const popup = await popupOpened;
    await signInAtProvider(popup, `${idp.issuer}/interaction/`, member);
    await popup.waitForEvent('close', { timeout: 30_000 });
    await page.getByText('Test sign-in succeeded.').waitFor({ timeout: 30_000 });
    const result = page.getByRole('region', { name: 'Test sign-in result' });
    await result.getByText("The address is in your organisation's domains.").waitFor();
    expect(await result.textContent()).toContain(member.email);
    expect(await seriousViolations(page)).toEqual([]);
    if (SCREENS) {
      mkdirSync(SCREENS, { recursive: true });
      await page.screenshot({ path: `${SCREENS}/admin-sso.png`, fullPage: true });
    }
    // The test signed nobody in: the admin is still the admin, and the person has no account yet.
    await page.reload();
    await page.getByRole('heading', { name: 'Single sign-on', level: 2 }).waitFor({ timeout: 30_000 });
    await context.close();

    // A member of the domain signs in by SSO through the provider just set up (no CSP change needed).
    const second = await browser.newPage();
    await walkToProvider(second.page, urls, member.email, `${idp.issuer}/interaction/`);
    await signInAtProvider(second.page, `${idp.issuer}/interaction/`, member);
    await landOnResearch(second.page, urls, member.email);
    await second.context.close();
  }, 180_000);
});
