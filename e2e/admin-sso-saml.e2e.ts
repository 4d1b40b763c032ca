import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startSamlIdp, type SamlIdp } from '@acme/dev';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createOrgWithAdmin, operator, signInToConsole } from './operator.ts';

// The console's Single sign-on section with SAML 2.0 (issue 26), end to end: the operator's CLI
// creates a throwaway organisation and its org-admin; the org-admin chooses SAML, registers our
// service provider (entity id, ACS, metadata link) and gives the IdP's metadata URL (a SAML IdP
// stand-in started here); the page shows the IdP's certificate, and Test connection passes.

describe('SAML single sign-on set up in the admin console', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  let idp: SamlIdp | undefined;
  afterAll(async () => idp?.close());

  it("an org-admin sets SAML by metadata URL, sees our SP metadata link and the IdP's certificate, and Test connection passes", async () => {
    const tag = randomBytes(4).toString('hex');
    const domain = `saml-${tag}.test`;
    const provider = `saml-${tag}`;
    const admin = { email: `admin@${domain}`, password: `Console-${tag}-2026!`, firstName: 'Samantha' };
    const orgId = await createOrgWithAdmin(urls, { name: `SAML ${tag}`, domain }, admin);
    // The organisation's SAML IdP: its metadata is all the console needs.
    idp = await startSamlIdp({ port: 0 });

    const { page, context } = await browser.newPage();
    await signInToConsole(page, urls, admin, '/admin/sso');
    await page.getByRole('heading', { name: 'Single sign-on', level: 2 }).waitFor({ timeout: 30_000 });

    // SAML by keyboard: the protocol radio, then our service provider to register at the IdP.
    await page.getByLabel('OpenID Connect').focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.getByLabel('SAML 2.0').isChecked()).toBe(true);
    const sp = page.getByRole('region', { name: /Our service provider/ });
    const spMetadata = `${urls.identityPublic}/self-service/methods/saml/metadata/${provider}`;
    expect(await sp.getByTestId('sso-sp-entity-id').textContent()).toBe(spMetadata);
    expect(await sp.getByTestId('sso-sp-acs').textContent()).toBe(
      `${urls.identityPublic}/self-service/methods/saml/acs/${provider}`,
    );
    const download = sp.getByRole('link', { name: 'Download our SAML metadata' });
    expect(await download.getAttribute('href')).toBe(spMetadata);
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Metadata URL').fill(idp.metadataUrl);
    // Checked before it is saved: the same checks as Test connection, nothing stored yet.
    await page.getByRole('button', { name: 'Check metadata before saving' }).click();
    await page.getByText('Every check passed.').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('region', { name: 'Current provider' }).count()).toBe(0);
    await page.getByLabel('Metadata URL').press('Enter');
    await page.getByText('Provider saved. Single sign-on works from now on.').waitFor({ timeout: 30_000 });
    const current = page.getByRole('region', { name: 'Current provider' });
    await current.getByText(idp.entityId, { exact: true }).waitFor();
    const fingerprint = await current
      .getByRole('table', { name: 'Signing certificates' })
      .getByRole('cell')
      .first()
      .textContent();
    expect(fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    // Our SP metadata, now that the provider is SAML, is served where the link points.
    const served = await fetch(spMetadata);
    expect(served.status).toBe(200);
    expect(await served.text()).toContain(`/self-service/methods/saml/acs/${provider}`);

    await page.getByRole('button', { name: 'Test connection' }).click();
    await page.getByText('Every check passed.').waitFor({ timeout: 30_000 });
    const checks = await page
      .getByRole('region', { name: 'Connection' })
      .getByRole('listitem')
      .allTextContents();
    expect(checks).toHaveLength(5);
    for (const check of checks) expect(check).toMatch(/^Passed:/);
    expect(await page.getByRole('button', { name: 'Test sign-in', exact: true }).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // The operator sees the same provider with the CLI: protocol, entity id, no certificate body.
    const shown = await operator(urls, ['sso:get', '--org', orgId]);
    expect(shown).toMatchObject({ protocol: 'saml', provider, saml: { idpEntityId: idp.entityId } });
    expect(JSON.stringify(shown)).not.toContain('BEGIN CERTIFICATE');
    await context.close();
  }, 180_000);
});
