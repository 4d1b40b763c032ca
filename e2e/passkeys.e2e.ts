import { mkdir } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';
import { seriousViolations } from './axe.ts';
import { createUser } from './fixtures.ts';
import { signInWithPassword, submitPassword, tabTo } from './journeys.ts';
import { noAutofill, virtualAuthenticator } from './webauthn.ts';

// Passkeys (issue 23, journeys 1 and 6): register a passkey in settings, sign out, sign in with the
// passkey alone to /research; the same by keyboard only. Chromium's virtual authenticator (DevTools
// protocol) stands in for the platform authenticator: a resident key with user verification. The
// relying party is `localhost`, which every application's origin shares on both targets.
// Security keys (`webauthn`, the second factor): added in the Two-factor section, then asked on the
// 2FA step after the password; the virtual authenticator is then a USB key without user verification.

const SHOTS = process.env.E2E_SCREENSHOTS;

async function openSettings(page: Page, urls: SystemUrls, section = 'settings-passkeys') {
  await page.goto(`${urls.platform}/account/settings`);
  await page.getByRole('heading', { name: 'Account settings' }).waitFor({ timeout: 30_000 });
  await page.getByTestId(section).waitFor();
}

async function signOut(page: Page, urls: SystemUrls) {
  await page.goto(`${urls.platform}/account/logout`);
  await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
  await page.getByRole('heading', { name: 'Welcome' }).waitFor();
}

describe('passkeys, end to end', () => {
  // The full browser: its passkey autofill waits for a pick, as people's browsers do.
  const browser = useBrowser({ full: true });
  const urls = systemUrls();

  it('registers a passkey in settings, signs out, signs in with the passkey alone to /research, confirms with it, then renames and removes it', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await virtualAuthenticator(context, page);
    await signInWithPassword(page, urls, user);

    await openSettings(page, urls);
    await page.getByTestId('passkeys-none').waitFor();
    await page.getByLabel('Passkey name').fill('Work laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('Passkey added.').waitFor({ timeout: 30_000 });
    const item = page.getByTestId('passkey');
    await item.getByText('Work laptop').waitFor();
    await item.getByText('Never used').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    if (SHOTS) {
      await mkdir(SHOTS, { recursive: true });
      await page.getByTestId('settings-passkeys').screenshot({ path: `${SHOTS}/settings-passkeys.png` });
    }

    // Browser autofill (conditional mediation): the Email step asks for a passkey in the background;
    // the virtual authenticator answers it as a person picking it from the suggestions would, and
    // the passkey alone signs in, without typing the address.
    await signOut(page, urls);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();

    // Password confirmation (the identity service's refresh flow, as a change without a recent
    // sign-in asks for it) offers the person's passkey instead of the password, and comes back.
    const settings = `${urls.platform}/account/settings`;
    await page.goto(
      `${urls.identityPublic}/self-service/login/browser?refresh=true&return_to=${encodeURIComponent(settings)}`,
    );
    await page.getByRole('heading', { name: 'Password confirmation' }).waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Use a passkey instead' }).click();
    await page.waitForURL(settings, { timeout: 30_000 });

    // The settings list now shows when it was last used.
    await openSettings(page, urls);
    expect(await page.getByTestId('passkey').getByText('Never used').count()).toBe(0);
    // Rename it, then remove it.
    await page.getByRole('button', { name: 'Rename passkey Work laptop' }).click();
    await page.getByLabel('New name for Work laptop').fill('Old laptop');
    await page.getByRole('button', { name: 'Save name' }).click();
    await page.getByText('Passkey renamed.').waitFor({ timeout: 30_000 });
    await page.getByTestId('passkey').getByText('Old laptop').waitFor();
    await page.getByRole('button', { name: 'Remove passkey Old laptop' }).click();
    await page.getByText('Passkey removed.').waitFor({ timeout: 30_000 });
    await page.getByTestId('passkeys-none').waitFor();
    await context.close();
  });

  it('by keyboard: adds a passkey, signs out, signs in with "Sign in with a passkey" to /research (axe: no serious issue)', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    // A browser without passkey autofill: the Email step offers the button only.
    await noAutofill(page);
    await virtualAuthenticator(context, page);
    await signInWithPassword(page, urls, user);

    await openSettings(page, urls);
    await tabTo(page, 'Passkey name');
    await page.keyboard.type('Phone');
    await page.keyboard.press('Enter');
    await page.getByText('Passkey added.').waitFor({ timeout: 30_000 });
    await page.getByTestId('passkey').getByText('Phone').waitFor();

    await signOut(page, urls);
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, 'Sign in with a passkey');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });

  it('a person with a password adds a security key in settings (by keyboard), signs in with the password and the key as the second factor to /research, then removes it', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await noAutofill(page);
    await virtualAuthenticator(context, page, 'usb');
    await signInWithPassword(page, urls, user);

    await openSettings(page, urls, 'security-keys');
    const keys = page.getByTestId('security-keys');
    await keys.getByTestId('security-keys-none').waitFor();
    // By keyboard: Tab to the name, type it, Enter.
    await tabTo(page, 'Security key name');
    await page.keyboard.type('YubiKey');
    await page.keyboard.press('Enter');
    await page.getByText('Security key added.').waitFor({ timeout: 30_000 });
    await keys.getByTestId('security-key').getByText('YubiKey').waitFor();
    await keys.getByTestId('security-key').getByText('Never used').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    if (SHOTS) {
      await mkdir(SHOTS, { recursive: true });
      await page
        .getByTestId('settings-two-factor')
        .screenshot({ path: `${SHOTS}/settings-security-keys.png` });
    }

    // The key is now the person's second factor: the password alone is not enough.
    await signOut(page, urls);
    await submitPassword(page, user);
    await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
    expect(await seriousViolations(page)).toEqual([]);
    await tabTo(page, 'Use a security key');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();

    // Used once; removed (the sign-in just now is recent enough), the password alone signs in again.
    await openSettings(page, urls, 'security-keys');
    expect(await keys.getByTestId('security-key').getByText('Never used').count()).toBe(0);
    await page.getByRole('button', { name: 'Remove security key YubiKey' }).click();
    await page.getByText('Security key removed.').waitFor({ timeout: 30_000 });
    await keys.getByTestId('security-keys-none').waitFor();
    await signOut(page, urls);
    await submitPassword(page, user);
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });
});
