import type { Page } from 'playwright-core';
import type { SystemUrls } from './browser.ts';

interface Credentials {
  email: string;
  password: string;
}

/** On the login page: email → password → (consent, callback) → the initial page. */
export async function enterCredentials(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await page.getByLabel('Email').fill(user.email);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
  await page.getByText(user.email).first().waitFor();
}

/** A whole sign-in from the platform's front door. Shared by journeys and the benchmark. */
export async function signInWithPassword(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await page.goto(`${urls.platform}/`);
  await page.waitForURL(/\/account\/login/);
  await enterCredentials(page, urls, user);
}
