import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { enterCredentials, signInWithPassword } from './journeys.ts';

// Dead ends when two things happen at once at the door, hit on purpose:
// - after logging out, opening the site again at once could hang on "Signing you in…" at
//   /account/login (whoami 401 twice, then nothing);
// - a page that lost its token starts its own authorization while the person opens the login page:
//   the server's answer to that navigation (its PKCE hand-off) arrived, the navigation was abandoned,
//   and the callback of the page's own authorization said "The state parameter did not match".

/** The Email step of the login screen. */
async function emailStep(page: Page, timeout = 10_000): Promise<void> {
  await page.getByRole('heading', { name: 'Welcome' }).waitFor({ timeout });
  await page.getByLabel('Email').waitFor();
}

describe('coming back at once after logging out', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it("opening / while the logout's own authorize redirect is still under way shows the Email step", async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    await signInWithPassword(page, urls, user);

    // Hold the first authorize request after the logout, so that the user is faster than it.
    let held = false;
    await page.route(
      (url) => url.href.startsWith(`${urls.oauth2Public}/oauth2/auth?`),
      async (route) => {
        if (held) return route.continue();
        held = true;
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        await route.continue().catch(() => undefined);
      },
    );
    const leaving = page.waitForRequest((r) => r.url().startsWith(`${urls.oauth2Public}/oauth2/auth?`));
    await page.getByRole('link', { name: /log ?out/i }).click();
    await leaving;
    // The login page that left took the application-login lock. However slow this machine is, the
    // lock must still be held when the next page asks for it: give it 15 s more, same holder.
    const lock = (await context.cookies(urls.platform)).find((c) => c.name === 'login_lock');
    expect(lock, 'the login page took the application-login lock').toBeDefined();
    const longer = { ...JSON.parse(decodeURIComponent(lock!.value)), expiresAt: Date.now() + 15_000 };
    await context.addCookies([
      { ...lock!, value: encodeURIComponent(JSON.stringify(longer)), expires: Date.now() / 1000 + 15 },
    ]);
    // The logout's own authorization may land first and interrupt this navigation; either way the
    // Email step must show.
    await page.goto(`${urls.platform}/`).catch((error: unknown) => {
      if (!String(error).includes('interrupted by another navigation')) throw error;
    });
    await page.waitForURL(/\/account\/login/);
    await emailStep(page);
    await context.close();
  });

  it('a login lock held by another tab and a slow whoami still end at the Email step', async () => {
    const { context, page } = await browser.newPage();
    // Another tab of this browser is on its way to the authorization server (its lock, 8 s). Set on
    // the context, as that tab would have: a page of ours written to for it may navigate meanwhile.
    const lock = { id: 'another-tab/page', expiresAt: Date.now() + 8_000 };
    await context.addCookies([
      {
        name: 'login_lock',
        value: encodeURIComponent(JSON.stringify(lock)),
        url: `${urls.platform}/`,
        sameSite: 'Lax',
        expires: Math.floor(Date.now() / 1000) + 8,
      },
    ]);
    // whoami answers 401 while that lock is still held.
    await page.route(
      (url) => url.href.startsWith(`${urls.identityPublic}/sessions/whoami`),
      async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 300));
        await route.continue();
      },
    );
    await page.goto(`${urls.platform}/`);
    await page.waitForURL(/\/account\/login/);
    // The other tab's lock is waited out (it is looked at again until it is free), never forever.
    await emailStep(page, 20_000);
    await context.close();
  });

  it("a login page's answer abandoned for the open page's own authorization: the sign-in still reaches /research", async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    // The person opens the login page while the open page, which lost its token, is about to start
    // its own authorization: the account app server answers that navigation with its authorization
    // and its PKCE hand-off cookie, then the navigation is abandoned for the page's own. Forced here:
    // the server's answer comes while the page asks whoami, before it takes the login lock.
    let abandoned: Promise<number> | undefined;
    await page.route(
      (url) => url.href.startsWith(`${urls.identityPublic}/sessions/whoami`),
      async (route) => {
        abandoned ??= context.request
          .get(`${urls.platform}/account/login`, { maxRedirects: 0 })
          .then((res) => res.status());
        await abandoned;
        await route.continue();
      },
    );
    const challenge = page.waitForURL(/login_challenge=/, { waitUntil: 'commit', timeout: 30_000 });
    await page.goto(`${urls.platform}/research`);
    await challenge;
    // The page asked whoami before it authorized, and the server answered the other navigation
    // with an authorization of its own.
    expect(await abandoned).toBe(302);
    await enterCredentials(page, urls, user);
    await context.close();
  });
});
