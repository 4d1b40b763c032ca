import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { startClientAddressProxy, type ClientAddressProxy } from './client-address-proxy.ts';
import { adminJson } from './fixtures.ts';
import { openLogin, submitPassword } from './journeys.ts';

// Trusted networks (issue 24): ada (org-admin) sets ranges that exclude grace's network; grace's
// next sign-in is refused with the trusted-networks message and she gets no session. Each browser
// reaches the system from its own loopback address through a client-address proxy (see
// client-address-proxy.ts): on the cluster the load balancer is the one trusted hop.

const ADA = { email: 'ada@acme.test', password: 'Research-Demo-2026!' };
const GRACE = { email: 'grace@acme.test', password: 'Research-Demo-2026!' };
const ADA_ADDRESS = '127.0.0.2';
const GRACE_ADDRESS = '127.0.0.3';
/** Screenshots for the note (not committed), when E2E_SCREENS names a folder. */
const SCREENS = process.env.E2E_SCREENS;

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENS) return;
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/admin-${name}.png`, fullPage: true });
}

describe('trusted networks, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  const proxies: ClientAddressProxy[] = [];
  let acmeId = '';

  beforeAll(async () => {
    proxies.push(await startClientAddressProxy(ADA_ADDRESS), await startClientAddressProxy(GRACE_ADDRESS));
    const { organisations } = await adminJson<{ organisations: { id: string; name: string }[] }>(
      `${urls.usersAdmin}/admin/organisations`,
    );
    acmeId = organisations.find((o) => o.name === 'Acme')!.id;
  });
  afterAll(async () => {
    // Whatever happened, Acme's members may sign in from anywhere again (the operator's way back).
    if (acmeId) {
      await fetch(`${urls.usersAdmin}/admin/organisations/${acmeId}/trusted-networks`, {
        method: 'DELETE',
        headers: inject('adminKey') ? { authorization: `Bearer ${inject('adminKey')}` } : {},
      });
    }
    for (const p of proxies) await p.close();
  });

  it(
    "ada's ranges exclude grace's network: grace's next sign-in is refused; ada is asked before locking herself out; emptied, grace signs in and sees Access Denied there",
    { timeout: 180_000 },
    async () => {
      const [adaProxy, graceProxy] = proxies as [ClientAddressProxy, ClientAddressProxy];
      const { page: ada } = await browser.newPage({ proxy: adaProxy.proxy });
      await ada.goto(`${urls.apps.admin}/admin/networks`);
      await ada.waitForURL(/\/account\/login/, { timeout: 30_000 });
      await submitPassword(ada, ADA);
      await ada.waitForURL((url) => !url.pathname.startsWith('/account/'), { timeout: 30_000 });
      await ada.goto(`${urls.apps.admin}/admin/networks`);
      await ada.getByRole('heading', { name: 'Trusted networks' }).waitFor({ timeout: 30_000 });
      // The system sees ada at her own address.
      await ada.getByText(`Your current address: ${ADA_ADDRESS}`).waitFor();
      await ada.getByText('No trusted networks: members may sign in from any network.').waitFor();

      // A list without her own address: she is asked first, and cancelling saves nothing.
      const ranges = ada.getByLabel('Allowed ranges (CIDR, one per line; IPv4 or IPv6)');
      await ranges.fill(`${GRACE_ADDRESS}/32`);
      await ada.getByRole('button', { name: 'Save trusted networks' }).click();
      const dialog = ada.getByRole('alertdialog');
      await dialog.getByText(`Your current address (${ADA_ADDRESS}) is outside these ranges`).waitFor();
      expect(await seriousViolations(ada)).toEqual([]);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      // Her own network only: saved at once; grace's network is now outside.
      await ranges.fill(`${ADA_ADDRESS}/32\n2001:db8::/32`);
      await ada.getByRole('button', { name: 'Save trusted networks' }).click();
      await ada.getByRole('status').getByText('Saved: 2 trusted ranges.').waitFor();
      expect(await seriousViolations(ada)).toEqual([]);
      await shot(ada, 'networks');

      // grace signs in from her own network: refused on the form, with no session.
      const { page: grace } = await browser.newPage({ proxy: graceProxy.proxy });
      await openLogin(grace, urls);
      await submitPassword(grace, GRACE);
      await grace
        .getByText(/allows sign-in only from its trusted networks/)
        .first()
        .waitFor({ timeout: 30_000 });
      expect(new URL(grace.url()).pathname).toBe('/account/login');
      const whoami = await grace.evaluate(
        async (identity) => (await fetch(`${identity}/sessions/whoami`, { credentials: 'include' })).status,
        urls.identityPublic,
      );
      expect(whoami).toBe(401);

      // The change is in the security events, as ada's act from her address.
      await ada.goto(`${urls.apps.admin}/admin/events`);
      await ada.getByRole('heading', { name: 'Security events' }).waitFor({ timeout: 30_000 });
      await ada.getByRole('cell', { name: 'trusted_networks.changed' }).first().waitFor({ timeout: 30_000 });

      // ada empties the list: grace signs in from her network again, and as a member she never
      // sees the Trusted networks section.
      await ada.goto(`${urls.apps.admin}/admin/networks`);
      await ranges.fill('');
      await ada.getByRole('button', { name: 'Save trusted networks' }).click();
      await ada.getByRole('status').getByText('Saved: members may sign in from any network.').waitFor();
      const { page: graceAgain } = await browser.newPage({ proxy: graceProxy.proxy });
      await graceAgain.goto(`${urls.apps.admin}/admin/networks`);
      await graceAgain.waitForURL(/\/account\/login/, { timeout: 30_000 });
      await submitPassword(graceAgain, GRACE);
      await graceAgain.waitForURL((url) => !url.pathname.startsWith('/account/'), { timeout: 30_000 });
      await graceAgain.goto(`${urls.apps.admin}/admin/networks`);
      await graceAgain.getByText('You are not authorised to access this page.').waitFor({ timeout: 30_000 });
      expect(await graceAgain.getByLabel('Allowed ranges (CIDR, one per line; IPv4 or IPv6)').count()).toBe(
        0,
      );
    },
  );
});
