import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seriousViolations } from './axe.ts';
import { systemUrls, useBrowser, type SystemUrls } from './browser.ts';

// Issue 21 item 9: single sign-on inside the Teams frame runs in the Teams authentication pop-up
// (600×400, polled every 100 ms), never in the frame, which ends signed in.

const GLOBEX_PASSWORD = 'Globex-Demo-2026!';

/** The MAGIC frame of the Teams host page. */
async function appFrame(page: Page): Promise<Frame> {
  const frame = await (await page.waitForSelector('iframe#app')).contentFrame();
  if (!frame) throw new Error('the Teams host page has no app frame');
  return frame;
}

async function expectNoSeriousViolations(page: Page, screen: string): Promise<void> {
  expect((await seriousViolations(page, 'iframe#app')).map((v) => `${screen}: ${v}`)).toEqual([]);
}

/** In the frame after the pop-up: the Terms step of a first sign-in, if any, then MAGIC's initial page. */
async function frameSignedIn(frame: Frame, urls: SystemUrls, email: string): Promise<void> {
  const terms = frame.getByLabel('I agree to the platform terms of service');
  const deadline = Date.now() + 30_000;
  while (!frame.url().startsWith(`${urls.magic}/research`) && !(await terms.isVisible())) {
    if (Date.now() > deadline) throw new Error(`the frame is stuck at ${frame.url()}`);
    await frame.waitForTimeout(200);
  }
  if (await terms.isVisible()) {
    await terms.check();
    await frame.getByLabel('I agree to the privacy policy').check();
    await frame.getByRole('button', { name: 'Continue' }).click();
  }
  await frame.waitForURL(`${urls.magic}/research`, { timeout: 30_000 });
  await frame.getByText(email).first().waitFor({ timeout: 30_000 });
}

describe('single sign-on inside the Teams frame (issue 21, item 9)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('the SSO step opens the provider in a 600×400 pop-up; the frame never leaves MAGIC and ends signed in', async () => {
    const { context, page } = await browser.newPage();
    // Hopper is a Globex (SSO) person, not a Microsoft 365 one: the frame shows MAGIC's own sign-in.
    await page.goto(`${urls.teamsHost}?app=/`);
    const frame = await appFrame(page);
    await frame.waitForURL(/\/account\/login/, { timeout: 30_000 });
    const frameUrls: string[] = [];
    page.on('framenavigated', (f) => {
      if (f === frame) frameUrls.push(f.url());
    });
    await frame.getByLabel('Email').fill('hopper@globex.test');
    await frame.getByRole('button', { name: 'Continue' }).click();

    // Inside the frame nothing opens by itself (a pop-up needs the person's click).
    const open = frame.getByRole('button', { name: 'Sign in with your organisation' });
    await open.waitFor({ timeout: 30_000 });
    expect(await frame.getByText("Your organisation's sign-in opens in a new window.").isVisible()).toBe(
      true,
    );
    await expectNoSeriousViolations(page, 'sso step in Teams');

    const opened = context.waitForEvent('page');
    await open.click();
    const popup = await opened;
    await popup.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), {
      timeout: 30_000,
    });
    // The Teams authentication window's size (600×400, `TEAMS_SDK.authPopup`).
    expect(await popup.evaluate(() => [window.innerWidth, window.innerHeight])).toEqual([600, 400]);
    // While it is open the frame says so and offers no second window.
    expect(await frame.getByRole('status').textContent()).toBe('Finish signing in in the new window.');
    expect(await open.isDisabled()).toBe(true);

    await popup.getByLabel('Email').fill('hopper@globex.test');
    await popup.getByLabel('Password').fill(GLOBEX_PASSWORD);
    const closed = popup.waitForEvent('close', { timeout: 30_000 });
    await popup.getByRole('button', { name: 'Sign in' }).click();
    // The pop-up page finishes the flow, tells the frame and closes itself.
    await closed;

    await frameSignedIn(frame, urls, 'hopper@globex.test');
    // The frame went through the authorization server and back, never to the provider.
    expect(frameUrls.some((u) => u.startsWith(urls.orgIdp))).toBe(false);
    expect(page.url()).toContain(urls.teamsHost);
    await expectNoSeriousViolations(page, 'initial page in Teams');
    await context.close();
  });

  it('a pop-up closed by hand leaves the frame on the SSO step, saying so, and a second try works', async () => {
    const { context, page } = await browser.newPage();
    await page.goto(`${urls.teamsHost}?app=/`);
    const frame = await appFrame(page);
    await frame.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await frame.getByLabel('Email').fill('hopper@globex.test');
    await frame.getByRole('button', { name: 'Continue' }).click();
    const open = frame.getByRole('button', { name: 'Sign in with your organisation' });
    await open.waitFor({ timeout: 30_000 });

    const first = context.waitForEvent('page');
    await open.click();
    const popup = await first;
    await popup.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), {
      timeout: 30_000,
    });
    await popup.close();
    await frame
      .getByRole('alert')
      .filter({ hasText: 'The sign-in window was closed before you finished.' })
      .waitFor({ timeout: 10_000 });
    expect(frame.url()).toMatch(/\/account\/login/);
    await expectNoSeriousViolations(page, 'sso step in Teams, window closed');

    // Keyboard: the button is reachable and Enter opens the window again.
    await open.focus();
    const second = context.waitForEvent('page');
    await frame.page().keyboard.press('Enter');
    const again = await second;
    await again.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), {
      timeout: 30_000,
    });
    await again.getByLabel('Email').fill('hopper@globex.test');
    await again.getByLabel('Password').fill(GLOBEX_PASSWORD);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await frameSignedIn(frame, urls, 'hopper@globex.test');
    await context.close();
  });
});
