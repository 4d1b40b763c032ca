import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { signInWithPassword } from './journeys.ts';

// Accessibility bar: WCAG 2.2 AA, axe on every screen with 0 serious or critical violations.
async function seriousViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

describe('accessibility (axe, WCAG 2.2 AA)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('the signed-out screens have no serious or critical violations', async () => {
    const { context, page } = await browser.newPage();
    const user = await createUser(urls);
    const screens: [string, () => Promise<void>][] = [
      [
        'login: email step',
        async () => {
          await page.goto(`${urls.platform}/`);
          // The Email step is painted before the authorization round trip (ADR 0021): check it
          // once the page has its login challenge and stays.
          await page.waitForURL(/login_challenge=/);
          await page.getByRole('heading', { name: 'Welcome' }).waitFor();
        },
      ],
      [
        'login: password step',
        async () => {
          await page.getByLabel('Email').fill(user.email);
          await page.getByRole('button', { name: 'Continue' }).click();
          await page.getByRole('heading', { name: 'Enter password' }).waitFor();
        },
      ],
      [
        'forgot password',
        async () => {
          await page.goto(`${urls.platform}/account/forgot-password`);
          await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
        },
      ],
      [
        'email verification',
        async () => {
          await page.goto(`${urls.platform}/account/verification`);
          await page.getByRole('heading', { name: 'Verify your email address' }).waitFor();
        },
      ],
      [
        'invitation: link expired',
        async () => {
          await page.goto(`${urls.platform}/account/onboarding`);
          await page.getByText('Link expired').first().waitFor();
        },
      ],
      [
        'error page',
        async () => {
          // The identity service's error page (`id`): open to anyone; a bare /account/error is guarded.
          await page.goto(`${urls.platform}/account/error?id=unknown`);
          await page.getByRole('link', { name: 'Back to Login' }).waitFor();
        },
      ],
    ];
    const found: string[] = [];
    for (const [name, open] of screens) {
      await open();
      for (const violation of await seriousViolations(page)) found.push(`${name}: ${violation}`);
    }
    expect(found).toEqual([]);
    await context.close();
  });

  it('the signed-in screens have no serious or critical violations', async () => {
    const { context, page } = await browser.newPage();
    const user = await createUser(urls);
    await signInWithPassword(page, urls, user);
    const found = (await seriousViolations(page)).map((v) => `research: ${v}`);
    await page.goto(`${urls.platform}/account/mfa-setup`);
    await page.getByLabel('I have installed an authenticator app').waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `mfa setup: ${v}`));
    expect(found).toEqual([]);
    await context.close();
  });
});
