import type { Page } from 'playwright-core';
import type { SystemUrls } from './browser.ts';

interface Credentials {
  email: string;
  password: string;
}

/** The platform's front door: no token, so the app sends the browser to the login screen. */
export async function openLogin(page: Page, urls: SystemUrls): Promise<void> {
  await page.goto(`${urls.platform}/`);
  await page.waitForURL(/\/account\/login/);
}

/** The Email step: type the address and continue. */
export async function enterEmail(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** The Email step, then the Password step; what follows is the caller's to check. */
export async function submitPassword(page: Page, user: Credentials): Promise<void> {
  await enterEmail(page, user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** On the login page: email → password → (consent, callback) → the initial page. */
export async function enterCredentials(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await submitPassword(page, user);
  await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
  await page.getByText(user.email).first().waitFor();
}

/** A whole sign-in from the platform's front door. Shared by journeys and the benchmark. */
export async function signInWithPassword(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await openLogin(page, urls);
  await enterCredentials(page, urls, user);
}
