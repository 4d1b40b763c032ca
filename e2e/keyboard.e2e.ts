import { totpCode } from '@acme/test-kit/totp';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser, invite } from './fixtures.ts';
import { codeIn, newestMail } from './mailbox.ts';
import { saveBackupCodes } from './journeys.ts';

// Issue 21 item 11 (WCAG 2.2 AA): the main journeys by keyboard only (Tab, Shift+Tab, Enter, Space;
// no pointer, no `fill`, no `click`). On every screen: the new step's heading has the focus, the
// focused control is visibly marked, axe finds no serious violation; the six-box code input is one
// field; errors are announced through a live region.

const SSO_PASSWORD = 'Globex-Demo-2026!';
const CONTOSO_PASSWORD = 'Contoso-Demo-2026!';

interface Focused {
  tag: string;
  name: string;
  type: string;
  outline: string;
}

async function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return { tag: '', name: '', type: '', outline: '' };
    const labelled = el.getAttribute('aria-labelledby');
    const name =
      el.getAttribute('aria-label') ??
      (labelled ? (document.getElementById(labelled)?.textContent ?? '') : '') ??
      '';
    const label = (el as HTMLInputElement).labels?.[0]?.textContent ?? '';
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      name: (name || label || el.textContent || '').trim(),
      type: (el as HTMLInputElement).type ?? '',
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.boxShadow}`,
    };
  });
}

/** The step's heading has the focus (focus moves to each new step's heading). */
async function expectHeadingFocused(page: Page, heading: string): Promise<void> {
  await page.getByRole('heading', { name: heading, exact: true }).waitFor({ timeout: 30_000 });
  await expect
    .poll(async () => {
      const f = await focused(page);
      return `${f.tag}:${f.name}`;
    })
    .toBe(`h1:${heading}`);
}

/** Presses Tab (or Shift+Tab) until the focused control's name matches; fails after `max` presses. */
async function tabTo(
  page: Page,
  name: RegExp,
  options: { back?: boolean; max?: number; ring?: boolean } = {},
): Promise<Focused> {
  for (let i = 0; i < (options.max ?? 25); i += 1) {
    await page.keyboard.press(options.back ? 'Shift+Tab' : 'Tab');
    const f = await focused(page);
    if (name.test(f.name)) {
      // Focus is visible: an outline or a focus ring, never nothing.
      if (options.ring !== false) expect(f.outline, `focus ring on ${f.name}`).not.toMatch(/^none 0px none$/);
      return f;
    }
  }
  throw new Error(`no control named ${name} within reach of the keyboard`);
}

async function axe(page: Page, screen: string): Promise<void> {
  expect((await seriousViolations(page)).map((v) => `${screen}: ${v}`)).toEqual([]);
}

/** The platform's front door; the Email step by keyboard. */
async function emailStep(page: Page, platform: string, email: string): Promise<void> {
  await page.goto(`${platform}/`);
  // The Email step is painted before the authorization round trip (ADR 0021); by keyboard, and
  // for axe, once the page has its login challenge and stays.
  await page.waitForURL(/\/account\/login\?.*login_challenge=/);
  await expectHeadingFocused(page, 'Welcome');
  await axe(page, 'login: email');
  await tabTo(page, /^Email$/);
  await page.keyboard.type(email);
  await page.keyboard.press('Enter');
}

describe('keyboard-only journeys (issue 21, item 11)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('password sign-in: a wrong password is announced in a live region; Shift+Tab reaches the back arrow; Enter signs in', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await emailStep(page, urls.platform, user.email);

    await expectHeadingFocused(page, 'Enter password');
    await axe(page, 'login: password');
    // Shift+Tab from the heading reaches the back arrow before it.
    const back = await tabTo(page, /back/i, { back: true, max: 3 });
    expect(back.tag).toBe('button');
    await tabTo(page, /^Password$/);
    await page.keyboard.type('Not-the-password-1!');
    await page.keyboard.press('Enter');
    const alert = page.locator('.form-errors');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.getAttribute('aria-live')).toBe('assertive');
    expect(await page.locator('.toasts').getAttribute('aria-live')).toBe('polite');
    await axe(page, 'login: password error');

    // Back in the password field (it kept the focus), select all and type the right one.
    await tabTo(page, /^Password$/, { back: true });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await page.getByText(user.email).first().waitFor();
    await axe(page, 'research');
    await context.close();
  });

  it('2FA: set up with the keyboard (Space ticks the box), then sign in with the one-field six-digit code', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await emailStep(page, urls.platform, user.email);
    await expectHeadingFocused(page, 'Enter password');
    await tabTo(page, /^Password$/);
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });

    await page.goto(`${urls.platform}/account/mfa-setup`);
    await expectHeadingFocused(page, 'Set up 2FA');
    await axe(page, 'mfa setup');
    const secret = (await page.getByTestId('totp-secret').textContent())?.trim() ?? '';
    await tabTo(page, /installed an authenticator app/);
    await page.keyboard.press('Space');
    expect(await page.getByLabel('I have installed an authenticator app').isChecked()).toBe(true);
    const code = await tabTo(page, /^2FA code$/);
    // The six boxes are one field to assistive technology: one text input, one label.
    expect(code.tag).toBe('input');
    expect(await page.getByLabel('2FA code').count()).toBe(1);
    await page.keyboard.type(totpCode(secret));
    await saveBackupCodes(page, { keyboard: true });
    await page.getByRole('heading', { name: '2FA', exact: true }).waitFor({ timeout: 30_000 });
    await axe(page, 'mfa setup done');

    await page.goto(`${urls.platform}/account/logout`);
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await expectHeadingFocused(page, 'Welcome');
    await tabTo(page, /^Email$/);
    await page.keyboard.type(user.email);
    await page.keyboard.press('Enter');
    await expectHeadingFocused(page, 'Enter password');
    await tabTo(page, /^Password$/);
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await expectHeadingFocused(page, 'Enter your 2FA code');
    await axe(page, 'login: 2FA');
    await tabTo(page, /^2FA code$/);
    // Arrow keys move between the boxes; a wrong code is announced.
    await page.keyboard.type(totpCode(secret, new Date(Date.now() - 10 * 60_000)));
    await page.getByText('The provided authentication code is invalid, please try again.').first().waitFor();
    expect(await page.locator('[role="alert"]').count()).toBeGreaterThan(0);
    await axe(page, 'login: 2FA error');
    const where = await focused(page);
    if (where.name !== '2FA code') await tabTo(page, /^2FA code$/);
    for (let i = 0; i < 6; i += 1) await page.keyboard.press('Backspace');
    await page.keyboard.type(totpCode(secret, new Date(Date.now() + 30_000)));
    await page.waitForURL(`${urls.platform}/research`, { timeout: 30_000 });
    await context.close();
  });

  it('recovery: Forgot Password, the emailed code and a new password, by keyboard', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await emailStep(page, urls.platform, user.email);
    await expectHeadingFocused(page, 'Enter password');
    await tabTo(page, /^Forgot Password$/);
    await page.keyboard.press('Enter');
    await expectHeadingFocused(page, 'Forgot password');
    await axe(page, 'recovery: email');
    const email = await tabTo(page, /^Email$/);
    expect(email.tag).toBe('input');
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(user.email);
    await page.keyboard.press('Enter');

    await expectHeadingFocused(page, 'Verify your email');
    await axe(page, 'recovery: code');
    const code = codeIn(await newestMail(urls, user.email, undefined, /password recovery code/));
    await tabTo(page, /code/i);
    await page.keyboard.type(code);
    await page.keyboard.press('Enter');

    await expectHeadingFocused(page, 'Change your password');
    await axe(page, 'recovery: new password');
    const password = `Keyboard-${Date.now()}!k`;
    await tabTo(page, /^New password$/);
    await page.keyboard.type(password);
    await tabTo(page, /^Confirm new password$/);
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await context.close();
  });

  it('invitation: the link, a new password, Skip for now and the terms, by keyboard', async () => {
    const invited = await invite(urls);
    const password = `Invited-${Date.now()}!k`;
    const { context, page } = await browser.newPage();
    await page.goto(invited.link);
    await expectHeadingFocused(page, 'Set your password');
    await axe(page, 'invitation: password');
    await tabTo(page, /^New password$|^Password$/);
    await page.keyboard.type(password);
    await tabTo(page, /confirm|re-enter/i);
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await expectHeadingFocused(page, 'Set up 2FA');
    await axe(page, 'invitation: 2FA');
    await tabTo(page, /^Skip for now$/);
    await page.keyboard.press('Enter');
    await expectHeadingFocused(page, 'Accept the terms');
    await axe(page, 'invitation: terms');
    await tabTo(page, /platform terms of service/);
    await page.keyboard.press('Space');
    await tabTo(page, /privacy policy/);
    await page.keyboard.press('Space');
    await tabTo(page, /^Continue$/);
    await page.keyboard.press('Enter');
    // The login completes the authorization; it may ask to confirm the password.
    const research = `${urls.platform}/research`;
    const confirm = page.getByRole('heading', { name: 'Password confirmation' });
    await expect
      .poll(async () => page.url() === research || (await confirm.isVisible()), { timeout: 45_000 })
      .toBe(true);
    if (page.url() !== research) {
      await expectHeadingFocused(page, 'Password confirmation');
      await tabTo(page, /^Password$/);
      await page.keyboard.type(password);
      await page.keyboard.press('Enter');
      await page.waitForURL(research, { timeout: 30_000 });
    }
    await page.getByText(invited.email).first().waitFor();
    await context.close();
  });

  it("SSO: Globex's address by keyboard, through its identity provider, to the initial page", async () => {
    const { context, page } = await browser.newPage();
    const email = 'hopper@globex.test';
    await emailStep(page, urls.platform, email);
    await page.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), { timeout: 30_000 });
    // The provider's own page (not ours: no focus-ring check there).
    await tabTo(page, /^Email$/, { ring: false });
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type(email);
    await tabTo(page, /^Password$/, { ring: false });
    await page.keyboard.type(SSO_PASSWORD);
    await page.keyboard.press('Enter');
    // A first sign-in shows the callback's Terms step (by Space and Enter); a returning one lands.
    const research = `${urls.platform}/research`;
    const terms = page.getByRole('heading', { name: 'Final Step' });
    await expect
      .poll(async () => page.url() === research || (await terms.isVisible()), { timeout: 30_000 })
      .toBe(true);
    if (page.url() !== research) {
      await expectHeadingFocused(page, 'Final Step');
      await axe(page, 'callback: terms');
      await tabTo(page, /platform terms of service/);
      await page.keyboard.press('Space');
      await tabTo(page, /privacy policy/);
      await page.keyboard.press('Space');
      await tabTo(page, /^Continue$/);
      await page.keyboard.press('Enter');
      await page.waitForURL(research, { timeout: 30_000 });
    }
    await page.getByText(email).first().waitFor();
    await context.close();
  });

  it('m365 login: Continue by keyboard opens the Microsoft popup, signed in by keyboard', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.magic}/account/m365-login`);
    await expectHeadingFocused(page, 'Welcome');
    await axe(page, 'm365 login');
    const popupOpened = page.waitForEvent('popup');
    await tabTo(page, /^Continue$/);
    await page.keyboard.press('Enter');
    const popup = await popupOpened;
    await popup.getByLabel('Email').waitFor();
    // Microsoft's page (the stand-in), by keyboard too.
    await tabTo(popup, /^Email$/, { ring: false });
    await popup.keyboard.type('megan@contoso.test');
    await tabTo(popup, /^Password$/, { ring: false });
    await popup.keyboard.type(CONTOSO_PASSWORD);
    await popup.keyboard.press('Enter');
    await page.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
    await axe(page, 'magic research');
    await context.close();
  });
});
