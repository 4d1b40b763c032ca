import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { inject } from 'vitest';
import type { SystemUrls } from './browser.ts';
import { acceptTermsIfAsked, submitPassword } from './journeys.ts';

// What the console journeys share: the operator's admin CLI against the running system, and a
// throwaway organisation's org-admin made with it and signed in at the admin application.

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

/** An org-admin the operator makes: who they are and how they sign in. */
export interface OrgAdmin {
  email: string;
  password: string;
  firstName: string;
  /** `--scope-groups` (comma-separated) when they hold any. */
  scopeGroups?: string;
}

/**
 * The operator creates a throwaway organisation (`domain`, the product Platform, subscribed) and its
 * org-admin with the CLI; answers the organisation's id.
 */
export async function createOrgWithAdmin(
  urls: SystemUrls,
  org: { name: string; domain: string },
  admin: OrgAdmin,
): Promise<string> {
  const created = await operator(urls, [
    'org:create',
    '--name',
    org.name,
    '--domains',
    org.domain,
    '--products',
    'Platform',
    '--subscription',
    'subscribed',
  ]);
  await operator(urls, [
    'user:create',
    '--org',
    String(created.id),
    '--email',
    admin.email,
    '--first',
    admin.firstName,
    '--last',
    'Admin',
    '--role',
    'org-admin',
    '--password',
    admin.password,
    ...(admin.scopeGroups ? ['--scope-groups', admin.scopeGroups] : []),
  ]);
  return String(created.id);
}

/**
 * The org-admin opens `path` of the admin application: the login (email and password), the Terms
 * step on a first sign-in, then `path` again.
 */
export async function signInToConsole(
  page: Page,
  urls: SystemUrls,
  admin: OrgAdmin,
  path: string,
): Promise<void> {
  await page.goto(`${urls.apps.admin}${path}`);
  await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
  await submitPassword(page, admin);
  await acceptTermsIfAsked(page, (u) => !u.pathname.startsWith('/account/'));
  await page.goto(`${urls.apps.admin}${path}`);
}
