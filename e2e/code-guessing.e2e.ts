import type { Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { systemUrls, useBrowser } from './browser.ts';
import { createUser } from './fixtures.ts';
import { codeIn, newestMail, type Message } from './mailbox.ts';

/** Response header of the cluster's nginx: the instance that answered. */
const UPSTREAM = 'x-upstream-instance';
const WRONG = 'The recovery code is invalid or has already been used. Please try again.';
const LOCKED = 'Too many wrong codes were entered for this address. Please try again in an hour.';

/**
 * The limit on wrong recovery codes is per address, across flows, and kept in the database: in
 * the cluster target, the browser's submissions go to both identity instances in turn, and ten
 * wrong codes spread over them still lock the address.
 */
describe('recovery code guessing, end to end', () => {
  const browser = useBrowser();
  const urls = systemUrls();
  const target = inject('target');

  it('ten wrong codes over two flows lock the address, even for the right code, on every instance', async () => {
    const user = await createUser(urls);
    const { context, page } = await browser.newPage();
    let lastMail: Message | undefined;

    /** A new recovery flow from the Email step; answers the code mailed for it. */
    async function requestCode(): Promise<string> {
      await page.goto(`${urls.platform}/account/forgot-password`);
      await page.getByRole('heading', { name: 'Forgot password' }).waitFor();
      await page.getByLabel('Email').fill(user.email);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Verify your email' }).waitFor();
      lastMail = await newestMail(urls, user.email, lastMail, /password recovery code/);
      return codeIn(lastMail);
    }

    /** Submits a code on the Code step; answers the instance that answered (none without a proxy). */
    async function submitCode(p: Page, code: string): Promise<string | undefined> {
      const answered = p.waitForResponse(
        (r) =>
          r.request().method() === 'POST' &&
          r.url().startsWith(`${urls.identityPublic}/self-service/recovery?flow=`),
      );
      await p.getByPlaceholder('000000').fill(code);
      await p.getByRole('button', { name: 'Continue' }).click();
      const response = await answered;
      return (await response.allHeaders())[UPSTREAM];
    }

    // Two flows with five wrong codes each (a flow's code dies at its fifth wrong one): ten.
    const wrongAnsweredBy: (string | undefined)[] = [];
    for (let round = 0; round < 2; round++) {
      const right = await requestCode();
      const wrong = right === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) {
        // Every other code, one request more through the identity proxy from here: whatever else
        // the page sends between two codes, the codes cannot all fall on the same instance.
        if (i % 2 === 1) await (await fetch(`${urls.identityPublic}/health/alive`)).body?.cancel();
        wrongAnsweredBy.push(await submitCode(page, wrong));
        await expect
          .poll(() => page.getByText(WRONG, { exact: true }).isVisible(), { timeout: 30_000 })
          .toBe(true);
      }
    }
    if (target === 'cluster') {
      expect(wrongAnsweredBy.every((a) => a && /^127\.0\.0\.1:\d+$/.test(a))).toBe(true);
      expect(new Set(wrongAnsweredBy).size).toBe(2);
    } else {
      expect(wrongAnsweredBy.every((a) => a === undefined)).toBe(true);
    }

    // A third flow with a fresh code: even the right one is refused, by one instance and the other.
    const right = await requestCode();
    const lockedBy: (string | undefined)[] = [];
    for (let i = 0; i < 3; i++) {
      if (i === 1) await (await fetch(`${urls.identityPublic}/health/alive`)).body?.cancel();
      lockedBy.push(await submitCode(page, right));
      await expect.poll(() => page.getByText(LOCKED).isVisible(), { timeout: 30_000 }).toBe(true);
    }
    expect(new Set(lockedBy).size).toBe(target === 'cluster' ? 2 : 1);
    // Still on the Code step: the new password was never offered, and no session was made.
    await expect
      .poll(() => page.getByRole('heading', { name: 'Verify your email' }).isVisible(), { timeout: 30_000 })
      .toBe(true);
    const whoami = await context.request.get(`${urls.identityPublic}/sessions/whoami`, {
      headers: { accept: 'application/json' },
    });
    expect(whoami.status()).toBe(401);
    await context.close();
  });
});
