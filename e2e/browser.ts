import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, inject } from 'vitest';

/**
 * Debian's Chromium: its headless shell when installed (`chromium-headless-shell`, the same build
 * without the full browser's compositing: on two journey files Chromium's CPU time went 39.8 →
 * 17.2 s and the files 47 → 34 s), else the full browser in its new headless mode. `full` asks for
 * the full browser: the shell answers a passkey autofill request at once from a virtual
 * authenticator, where a browser waits for the person to pick the passkey.
 */
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const chromiumPath = (full: boolean): string =>
  process.env.CHROMIUM_PATH ?? (!full && existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

/** The flags this machine's closed network needs (also the Lighthouse bench's, bench/lighthouse.ts). */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

/** Debian's Chromium, with the flags this machine's closed network needs. */
export async function launchBrowser(options: { full?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(options.full ?? false),
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}

export type { SystemUrls } from '../scripts/system.ts';
import type { SystemUrls } from '../scripts/system.ts';

export function systemUrls(): SystemUrls {
  return inject('urls');
}

async function newPage(
  browser: Browser,
  options?: BrowserContextOptions,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  return { context, page };
}

/** Chromium for the calling test file: launched before its tests, closed after them. */
export function useBrowser(options: { full?: boolean } = {}): {
  newPage(options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
} {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser(options);
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    newPage(options) {
      if (!browser) throw new Error('useBrowser(): the browser is not launched yet');
      return newPage(browser, options);
    },
  };
}
