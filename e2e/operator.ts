import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { inject } from 'vitest';
import type { SystemUrls } from './browser.ts';

// What the console journeys share: the operator's admin CLI against the running system, and the
// Terms step after a first sign-in.

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'services/users/src/cli.ts');

/** `npm run admin -- …` against the running system (with its admin key): the printed JSON. */
export async function operator(urls: SystemUrls, args: string[]): Promise<Record<string, unknown>> {
  const key = inject('adminKey');
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, USERS_ADMIN_URL: urls.usersAdmin, ...(key ? { USERS_ADMIN_KEY: key } : {}) },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  if (code !== 0) throw new Error(`admin ${args[0]} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** After a first sign-in: the Terms step when it shows, then wherever the app goes. */
export async function acceptTermsIfAsked(page: Page, leaves: (url: URL) => boolean): Promise<void> {
  const terms = page.getByLabel('I agree to the platform terms of service');
  const deadline = Date.now() + 30_000;
  while (!leaves(new URL(page.url())) && !(await terms.isVisible())) {
    if (Date.now() > deadline) throw new Error(`stuck at ${page.url()}`);
    await page.waitForTimeout(200);
  }
  if (!leaves(new URL(page.url()))) {
    await terms.check();
    await page.getByLabel('I agree to the privacy policy').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(leaves, { timeout: 30_000 });
  }
}
