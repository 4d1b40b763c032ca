import type { Locator, Page } from 'playwright-core';
import { totpCode } from '@acme/test-kit/totp';
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

/** Where the page is and what it says (its first 400 characters), for a journey that got stuck. */
export async function whereIs(page: Page): Promise<string> {
  const text = await page
    .locator('body')
    .innerText()
    .catch(() => '');
  const disabled = await page
    .locator('button:disabled, [aria-busy="true"]')
    .count()
    .catch(() => 0);
  return `${page.url()} (${disabled} disabled or busy controls): ${text.slice(0, 400)}`;
}

/** Waits for `locator` (30 s), or fails saying what did not come and where the page was. */
export async function waitOrSayWhere(page: Page, locator: Locator, what: string): Promise<void> {
  await locator.waitFor({ timeout: 30_000 }).catch(async (error: unknown) => {
    throw new Error(`${what} at ${await whereIs(page)}`, { cause: error });
  });
}

/** The Email step, then the Password step; what follows is the caller's to check. */
export async function submitPassword(page: Page, user: Credentials): Promise<void> {
  await enterEmail(page, user.email);
  const password = page.getByLabel('Password');
  await waitOrSayWhere(page, password, 'no Password step after the Email step');
  await password.fill(user.password);
  await page.getByRole('button', { name: 'Continue' }).click();
}

/** On the login page: email → password → (consent, callback) → the initial page. */
export async function enterCredentials(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await submitPassword(page, user);
  await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 }).catch(async (error: unknown) => {
    throw new Error(`no /research after the password at ${await whereIs(page)}`, { cause: error });
  });
  await page.getByText(user.email).first().waitFor();
}

/** A whole sign-in from the platform's front door. Shared by journeys and the benchmark. */
export async function signInWithPassword(page: Page, urls: SystemUrls, user: Credentials): Promise<void> {
  await openLogin(page, urls);
  await enterCredentials(page, urls, user);
}

/**
 * From the platform's front door to an SSO provider's own page: the Email step with an address of
 * an organisation that signs in by SSO; the provider's page is the one whose URL starts with `provider`.
 */
export async function walkToProvider(
  page: Page,
  urls: SystemUrls,
  email: string,
  provider: string,
): Promise<void> {
  await openLogin(page, urls);
  await enterEmail(page, email);
  await page.waitForURL((u) => u.toString().startsWith(provider), { timeout: 30_000 });
}

/** At an SSO provider's own page (the OIDC and SAML stand-ins alike, URL below `provider`): Email, Password, Sign in. */
export async function signInAtProvider(page: Page, provider: string, user: Credentials): Promise<void> {
  await page.waitForURL((u) => u.toString().startsWith(provider), { timeout: 30_000 });
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** After a first sign-in: the Terms step when it shows, then wherever the app goes. */
export async function acceptTermsIfAsked(page: Page, leaves: (url: URL) => boolean): Promise<void> {
  const terms = page.getByLabel('I agree to the platform terms of service');
  const where = () => whereIs(page);
  const deadline = Date.now() + 30_000;
  while (!leaves(new URL(page.url())) && !(await terms.isVisible())) {
    if (Date.now() > deadline) throw new Error(`stuck at ${await where()}`);
    await page.waitForTimeout(200);
  }
  if (!leaves(new URL(page.url()))) {
    await terms.check();
    await page.getByLabel('I agree to the privacy policy').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    // Until the address leaves (its page's content is the caller's next check, not its load event),
    // and where it did not: the address and what the page says.
    await page.waitForURL(leaves, { timeout: 30_000, waitUntil: 'commit' }).catch(async (error: unknown) => {
      throw new Error(`stuck after the Terms step at ${await where()}`, { cause: error });
    });
  }
}

/** After an SSO provider: the Terms step on a first sign-in, then /research with the person's address. */
export async function landOnResearch(page: Page, urls: SystemUrls, email: string): Promise<void> {
  await acceptTermsIfAsked(page, (u) => u.toString() === `${urls.platform}/research`);
  await page.getByText(email).first().waitFor({ timeout: 30_000 });
}

/**
 * After a TOTP set-up the backup codes come in a step of their own, before the completion screen:
 * checks there are 12 and confirms them ("I have saved these codes"). `keyboard` confirms with
 * Tab and Enter, no pointer. Answers the codes.
 */
export async function saveBackupCodes(page: Page, options: { keyboard?: boolean } = {}): Promise<string[]> {
  await page.getByRole('heading', { name: 'Save your backup codes' }).waitFor({ timeout: 30_000 });
  const codes = (await page.getByTestId('backup-codes').getByRole('listitem').allTextContents()).map((c) =>
    c.trim(),
  );
  if (codes.length !== 12) throw new Error(`expected 12 backup codes, saw ${codes.length}`);
  const confirm = page.getByRole('button', { name: 'I have saved these codes' });
  if (options.keyboard) {
    for (let i = 0; i < 20 && !(await confirm.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
  } else await confirm.click();
  return codes;
}

/** Sets up TOTP from /account/mfa-setup (the backup codes step included); answers the secret. */
export async function setUpSecondFactor(page: Page, platform: string): Promise<string> {
  await page.goto(`${platform}/account/mfa-setup`);
  const install = page.getByLabel('I have installed an authenticator app');
  await install.waitFor();
  const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
  await install.check();
  await page.getByLabel('2FA code').pressSequentially(totpCode(secret));
  await saveBackupCodes(page);
  await page.getByRole('heading', { name: '2FA', exact: true }).waitFor({ timeout: 30_000 });
  return secret;
}

/**
 * Moves the keyboard focus to the element whose name (label, aria-label or text) contains `name`:
 * stays when it already has the focus (an autofocused field), else presses Tab until it does.
 */
export async function tabTo(page: Page, name: string, max = 40): Promise<void> {
  for (let i = 0; i <= max; i++) {
    const focused = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return '';
      const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? '';
      return `${label} ${el.getAttribute('aria-label') ?? ''} ${el.textContent ?? ''}`;
    });
    if (focused.includes(name)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`no focusable element named "${name}" within ${max} Tab presses`);
}

/** Invitation onboarding: password, skip 2FA, accept the terms; the app then goes to login. */
export async function onboardFromInvitation(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('heading', { name: 'Set your password' }).waitFor({ timeout: 30_000 });
  await page.getByPlaceholder('Create password').fill(password);
  await page.getByPlaceholder('Re-enter password').fill(password);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('button', { name: 'Skip for now' }).click({ timeout: 30_000 });
  await page.getByRole('heading', { name: 'Accept the terms' }).waitFor({ timeout: 30_000 });
  await page.getByLabel('I agree to the platform terms of service').check();
  await page.getByLabel('I agree to the privacy policy').check();
  await page.getByRole('button', { name: 'Continue' }).click();
}

/**
 * The callback's source-code-host link step, after a password confirmation when the server asks
 * for one: the step's heading, shown.
 */
export async function reachGitLinkStep(page: Page, password: string): Promise<Locator> {
  const linkStep = page.getByRole('heading', { name: 'Link your GitHub account' });
  const confirm = page.getByRole('heading', { name: 'Password confirmation' });
  await Promise.race([linkStep.waitFor({ timeout: 45_000 }), confirm.waitFor({ timeout: 45_000 })]);
  if (await confirm.isVisible()) {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Continue' }).click();
    await linkStep.waitFor({ timeout: 30_000 });
  }
  return linkStep;
}
