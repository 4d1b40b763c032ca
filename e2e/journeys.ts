import type { Page } from 'playwright-core';
import type { SystemUrls } from './browser.ts';

/** Email → password → (consent, callback) → the initial page. Shared by journeys and the benchmark. */
export async function signInWithPassword(
  page: Page,
  urls: SystemUrls,
  user: { email: string; password: string },
  startUrl = `${urls.platform}/`,
): Promise<void> {
  await page.goto(startUrl);
  await page.waitForURL(/\/account\/login/);
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
  await page.getByText(user.email).first().waitFor();
}
