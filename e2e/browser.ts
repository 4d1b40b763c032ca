import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';

/** Debian's Chromium, with the flags this machine's closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
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
export function useBrowser(): {
  newPage(options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }>;
} {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
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
