import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@acme/test-kit/free-port';
import { WEBHOOK_TEST_TYPE } from '@acme/users-contract/webhooks';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createOrgWithAdmin, signInToConsole } from './operator.ts';

// The console's Webhooks section (issue 35), end to end, on both targets: an org-admin of a throwaway
// organisation adds an endpoint for invitations that points at a receiver this test runs on loopback
// (the journeys' settings accept loopback receivers, as development does), copies its secret (shown
// once), invites a person through the console and sees the delivery listed as delivered. The
// receiver checks the request's signature with the Standard Webhooks library and the copied secret.
// Paused, the endpoint receives nothing; resumed, one delivery is sent again with the same
// `webhook-id`. At 320 px the deliveries are a list that fits the window.

/** Screenshots for the note (not committed), when E2E_SCREENS names a folder. */
const SCREENS = process.env.E2E_SCREENS;
/** How long a delivery may take to arrive (the outbox works in the background). */
const DELIVERY_WAIT_MS = 60_000;
/** While paused, how long the receiver is watched for an event that must not come. */
const PAUSED_WATCH_MS = 5_000;

async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENS) return;
  mkdirSync(SCREENS, { recursive: true });
  await page.screenshot({ path: `${SCREENS}/webhooks-${name}.png`, fullPage: true });
}

interface Received {
  method: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A receiver on loopback: answers 204 to every request and keeps each one as it came, the
 * `webhook.test` request sent when the endpoint is saved apart from the deliveries.
 */
async function startReceiver(path: string) {
  const received: Received[] = [];
  const tests: Received[] = [];
  const flat = (headers: IncomingHttpHeaders) =>
    Object.fromEntries(
      Object.entries(headers).map(([name, value]) => [
        name,
        Array.isArray(value) ? value.join(', ') : (value ?? ''),
      ]),
    );
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const got = {
        method: req.method ?? '',
        headers: flat(req.headers),
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const isTest = (JSON.parse(got.body || '{}') as { type?: string }).type === WEBHOOK_TEST_TYPE;
      (isTest ? tests : received).push(got);
      res.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    tests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Whether every element of the Webhooks section fits a window `width` wide. */
const sectionFits = (page: Page) =>
  page.evaluate(() => {
    const section = document.querySelector('section[aria-labelledby="webhooks-title"]');
    if (!section) return ['no section'];
    return Array.from(section.querySelectorAll('*'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
  });

describe('the console Webhooks section, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  let closeReceiver: (() => Promise<void>) | undefined;
  afterAll(async () => closeReceiver?.());

  it(
    'an org-admin adds an endpoint, copies its secret once, sees an invitation delivered and signed, pauses it, resumes it and redelivers',
    { timeout: 300_000 },
    async () => {
      const tag = randomBytes(4).toString('hex');
      const domain = `hooks-${tag}.test`;
      const admin = { email: `admin@${domain}`, password: `Console-${tag}-2026!`, firstName: 'Wendy' };
      await createOrgWithAdmin(urls, { name: `Webhooks ${tag}`, domain }, admin);
      const receiver = await startReceiver(`/hooks/${tag}`);
      closeReceiver = receiver.close;

      const { page } = await browser.newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
      await signInToConsole(page, urls, admin, '/admin/webhooks');
      await page.getByRole('heading', { name: 'Webhooks', level: 2 }).waitFor({ timeout: 30_000 });
      await page.getByText('No endpoints yet.').waitFor({ timeout: 30_000 });
      expect(await seriousViolations(page)).toEqual([]);

      // The endpoint, for invitations only.
      const form = page.getByRole('form', { name: 'Add an endpoint' });
      await form.getByLabel('Endpoint URL').fill(receiver.url);
      await form.getByLabel('All events').uncheck();
      await form
        .getByRole('group', { name: 'Organisation changes' })
        .getByLabel(/invitation\.created/)
        .check();
      await form.getByRole('button', { name: 'Save endpoint' }).click();

      // The secret, once: copied with the button, then gone from the page for good.
      const secretPanel = page.getByRole('region', { name: 'Signing secret' });
      const secret = (await secretPanel.getByTestId('webhook-secret').textContent({ timeout: 30_000 }))!;
      expect(secret).toMatch(/^whsec_/);
      await secretPanel.getByText("You won't see it again").waitFor();
      const endpoint = page
        .getByRole('listitem')
        .filter({ has: page.getByRole('heading', { name: receiver.url }) });
      await endpoint.getByText('invitation.created').waitFor();
      await endpoint.getByText('Active').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, 'secret');
      await secretPanel.getByRole('button', { name: 'Copy secret' }).click();
      await page.getByRole('status').getByText('Secret copied.').waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
      await secretPanel.getByRole('button', { name: 'I have copied the secret' }).click();
      expect(await page.content()).not.toContain(secret);
      await page.reload();
      await endpoint.waitFor({ timeout: 30_000 });
      expect(await page.content()).not.toContain(secret);

      // An event: a person invited through the console.
      const invite = async (local: string) => {
        await page.getByRole('link', { name: 'Invitations' }).click();
        await page.getByRole('heading', { name: 'Invite a person' }).waitFor({ timeout: 30_000 });
        await page.getByLabel('Email').fill(`${local}@${domain}`);
        await page.getByLabel('First name').fill('Ivy');
        await page.getByLabel('Last name').fill(local);
        await page.getByRole('button', { name: 'Send invitation' }).click();
        await page.getByText(`Invitation sent to ${local}@${domain}.`).waitFor({ timeout: 30_000 });
        await page.getByRole('link', { name: 'Webhooks' }).click();
        await endpoint.waitFor({ timeout: 30_000 });
      };
      await invite('ivy');

      // Listed as delivered (Refresh until the outbox has sent it).
      await endpoint.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click();
      const deliveries = page.getByRole('region', { name: `Deliveries to ${receiver.url}` });
      const rows = deliveries.getByRole('row').filter({ hasText: 'invitation.created' });
      await expect
        .poll(
          async () => {
            await deliveries.getByRole('button', { name: 'Refresh' }).click();
            return rows.filter({ hasText: 'Delivered' }).count();
          },
          { timeout: DELIVERY_WAIT_MS, interval: 1000 },
        )
        .toBe(1);
      const row = rows.first();
      await row.getByText('HTTP 204').waitFor();
      const webhookId = (await row.getByRole('cell').nth(1).textContent())!;
      expect(await seriousViolations(page)).toEqual([]);
      await shot(page, 'deliveries');

      // Saving sent one test request, signed with the secret the page showed.
      expect(receiver.tests).toHaveLength(1);
      expect(new Webhook(secret).verify(receiver.tests[0]!.body, receiver.tests[0]!.headers)).toMatchObject({
        type: WEBHOOK_TEST_TYPE,
      });

      // At the receiver: one POST, its webhook-id the listed one, signed with the copied secret.
      expect(receiver.received).toHaveLength(1);
      const [first] = receiver.received as [Received];
      expect(first.method).toBe('POST');
      expect(first.headers['webhook-id']).toBe(webhookId);
      const payload = new Webhook(secret).verify(first.body, first.headers) as { type?: string };
      expect(payload.type).toBe('invitation.created');
      expect(first.body).not.toContain(secret);
      // The check can fail: another body or another secret is refused.
      expect(() => new Webhook(secret).verify(`${first.body} `, first.headers)).toThrow();
      expect(() =>
        new Webhook(`whsec_${randomBytes(24).toString('base64')}`).verify(first.body, first.headers),
      ).toThrow();

      // A phone held upright: the deliveries are a list, and the section fits 320 px.
      await page.setViewportSize({ width: 320, height: 800 });
      await deliveries.getByRole('list').getByText(webhookId).waitFor();
      expect(await deliveries.getByRole('table').count()).toBe(0);
      expect(await sectionFits(page)).toEqual([]);
      await shot(page, 'narrow');
      await page.setViewportSize({ width: 1280, height: 800 });
      await deliveries.getByRole('table').waitFor();

      // Paused: the state says so, and an invitation meanwhile reaches nobody.
      await endpoint.getByRole('button', { name: `Pause ${receiver.url}` }).click();
      await page.getByRole('status').getByText(`Endpoint ${receiver.url} paused.`).waitFor();
      await endpoint.getByText('Paused: no events are sent or queued until you resume it.').waitFor();
      await invite('noa');
      await page.waitForTimeout(PAUSED_WATCH_MS);
      expect(receiver.received).toHaveLength(1);

      // Resumed, and the first delivery sent again: the same webhook-id, signed again.
      await endpoint.getByRole('button', { name: `Resume ${receiver.url}` }).click();
      await page.getByRole('status').getByText(`Endpoint ${receiver.url} resumed`).waitFor();
      await endpoint.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click();
      await deliveries.getByRole('button', { name: `Redeliver ${webhookId}` }).click();
      await page.getByRole('status').getByText(`Delivery of ${webhookId} queued again.`).waitFor();
      await expect.poll(() => receiver.received.length, { timeout: DELIVERY_WAIT_MS }).toBe(2);
      const again = receiver.received[1]!;
      expect(again.headers['webhook-id']).toBe(webhookId);
      expect(new Webhook(secret).verify(again.body, again.headers)).toEqual(payload);
      await expect
        .poll(
          async () => {
            await deliveries.getByRole('button', { name: 'Refresh' }).click();
            return deliveries
              .getByRole('row')
              .filter({ hasText: webhookId })
              .filter({ hasText: 'Delivered' })
              .count();
          },
          { timeout: DELIVERY_WAIT_MS, interval: 1000 },
        )
        .toBeGreaterThan(0);

      // By keyboard: Delete asks first, Escape keeps the endpoint; confirmed, it goes.
      const remove = endpoint.getByRole('button', { name: `Delete ${receiver.url}` });
      await remove.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('alertdialog');
      await dialog.getByText(`Delete the endpoint ${receiver.url}?`).waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await remove.evaluate((el) => el === document.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await dialog.getByRole('button', { name: 'Yes, delete' }).click();
      await page.getByRole('status').getByText(`Endpoint ${receiver.url} deleted.`).waitFor();
      await page.getByText('No endpoints yet.').waitFor();
    },
  );
});
