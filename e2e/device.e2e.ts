import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { totpCode } from '@acme/test-kit/totp';
import { systemUrls, useBrowser } from './browser.ts';
import { EXPIRING_DEVICE_CLIENT } from './global-setup.ts';
import { createUser } from './fixtures.ts';
import { enterEmail, signInWithPassword, submitPassword, setUpSecondFactor } from './journeys.ts';

// Device sign-in (RFC 8628): the research CLI starts a device flow, Chromium approves it on
// /account/device, and the CLI prints the claims. The person has a second factor. A fresh
// org-admin stands in for ada, so that the shared demo account stays without 2FA for the other
// journeys.

const CONTOSO_PASSWORD = 'Contoso-Demo-2026!';
const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'packages/research-cli/src/cli.ts');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface CliRun {
  url: Promise<string>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function research(issuer: string, dir: string, args: string[], env: Record<string, string> = {}): CliRun {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      RESEARCH_ISSUER: issuer,
      RESEARCH_CONFIG_DIR: dir,
      RESEARCH_NO_BROWSER: '1',
      ...env,
    },
  });
  let stdout = '';
  let stderr = '';
  let found: (url: string) => void = () => undefined;
  const url = new Promise<string>((r) => (found = r));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const match = /\(or open (\S+)\)/.exec(stdout);
    if (match) found(match[1]!);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    child.on('close', (code) => r({ code, stdout, stderr })),
  );
  return { url, done };
}

describe('connect a device (research CLI)', () => {
  const browser = useBrowser();
  const urls = systemUrls();

  it('the CLI prints the code; the person signs in with password and 2FA, approves, and the CLI prints their claims; a denied code ends with access_denied', async () => {
    const user = await createUser(urls, { role: 'org-admin' });
    const setup = await browser.newPage();
    await signInWithPassword(setup.page, urls, user);
    const secret = await setUpSecondFactor(setup.page, urls.platform);
    await setup.context.close();

    const dir = join(await mkdtemp(join(tmpdir(), 'research-e2e-')), 'config');
    dirs.push(dir);
    const login = research(urls.oauth2Public, dir, ['login']);
    const url = await login.url;
    expect(url.startsWith(`${urls.platform}/account/device?user_code=`)).toBe(true);

    // A browser that is not signed in opens verification_uri_complete: the code is prefilled.
    const { context, page } = await browser.newPage();
    await page.goto(url);
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor({ timeout: 30_000 });
    const field = page.getByLabel('Device code');
    const userCode = new URL(url).searchParams.get('user_code')!;
    expect(await field.inputValue()).toBe(userCode);
    await page.getByRole('button', { name: 'Continue' }).click();

    // Sign in with password and the second factor.
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await submitPassword(page, user);
    await page.getByRole('heading', { name: 'Enter your 2FA code' }).waitFor({ timeout: 30_000 });
    await page.getByLabel('2FA code').pressSequentially(totpCode(secret, new Date(Date.now() + 30_000)));

    // The consent: which client asks for which access.
    await page
      .getByText('Research CLI asks to sign in as you with this access:')
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByText('Know who you are').waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('You can return to your terminal.').waitFor({ timeout: 30_000 });

    const result = await login.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Signed in (subject ${user.identityId}).`);
    const whoami = await research(urls.oauth2Public, dir, ['whoami']).done;
    expect(whoami.code).toBe(0);
    const claims = JSON.parse(whoami.stdout);
    expect(claims).toMatchObject({
      sub: user.identityId,
      client_id: 'research-cli',
      ext: { user: { authenticationMode: 'ory' }, role: 'org-admin' },
    });

    // Denied: the same (now signed-in) browser denies a second device.
    const denied = research(urls.oauth2Public, join(dir, 'other'), ['login']);
    await page.goto(await denied.url);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click({ timeout: 30_000 });
    await page.getByText('You denied the device. Nothing was connected.').waitFor({ timeout: 30_000 });
    const deniedResult = await denied.done;
    expect(deniedResult.code).toBe(1);
    expect(deniedResult.stderr).toContain('Error: access_denied');
    await context.close();
  });

  it('hopper approves a device through Globex single sign-on, without a password in our app', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'research-e2e-')), 'config');
    dirs.push(dir);
    const login = research(urls.oauth2Public, dir, ['login']);
    const { context, page } = await browser.newPage();
    await page.goto(await login.url);
    await page.getByRole('button', { name: 'Continue' }).click({ timeout: 30_000 });
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await enterEmail(page, 'hopper@globex.test');
    await page.waitForURL((u) => u.toString().startsWith(`${urls.orgIdp}/interaction/`), { timeout: 30_000 });
    await page.getByLabel('Email').fill('hopper@globex.test');
    await page.getByLabel('Password').fill('Globex-Demo-2026!');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Approve' }).click({ timeout: 30_000 });
    await page.getByText('You can return to your terminal.').waitFor({ timeout: 30_000 });
    const result = await login.done;
    expect(result.code).toBe(0);
    const whoami = await research(urls.oauth2Public, dir, ['whoami']).done;
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      client_id: 'research-cli',
      ext: { user: { authenticationMode: 'ory' } },
    });
    await context.close();
  });

  it('an expired code: the CLI ends with expired_token, and the browser says the code expired and offers to start again', async () => {
    // The journeys' expiring device client: its codes live 3 s (code_ttl_seconds), the CLI polls every 5 s.
    const dir = join(await mkdtemp(join(tmpdir(), 'research-e2e-')), 'config');
    dirs.push(dir);
    const login = research(urls.oauth2Public, dir, ['login'], { RESEARCH_CLIENT_ID: EXPIRING_DEVICE_CLIENT });
    const url = await login.url;
    const result = await login.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: expired_token');

    const { context, page } = await browser.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Continue' }).click({ timeout: 30_000 });
    await page
      .getByText('This code has expired. Start the sign-in again in your terminal to get a new code.')
      .first()
      .waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Start again' }).click();
    await page.getByRole('heading', { name: 'Connect a device' }).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('Device code').inputValue()).toBe('');
    await context.close();
  });

  it('megan (Microsoft 365) types the code on Platform, is sent to MAGIC with the same sign-in, signs in with Microsoft, approves, and the CLI prints her claims', async () => {
    const dir = join(await mkdtemp(join(tmpdir(), 'research-e2e-')), 'config');
    dirs.push(dir);
    const login = research(urls.oauth2Public, dir, ['login']);
    const url = await login.url;
    expect(url.startsWith(`${urls.platform}/account/device?user_code=`)).toBe(true);
    const { context, page } = await browser.newPage();
    await page.goto(url);
    await page.getByRole('button', { name: 'Continue' }).click({ timeout: 30_000 });
    // Platform refuses Microsoft 365: its login page sends this device sign-in on to MAGIC.
    await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
    await enterEmail(page, 'megan@contoso.test');
    await page.getByText('The code you entered stays valid.', { exact: false }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: 'Connect the device on MAGIC' }).click();
    // MAGIC's login page: the m365 address goes to Microsoft (redirect sign-in against Entra).
    await page.waitForURL((u) => u.origin === urls.magic && u.pathname === '/account/login', {
      timeout: 30_000,
    });
    if (await page.getByLabel('Email').isVisible()) await enterEmail(page, 'megan@contoso.test');
    await page.waitForURL((u) => u.origin === urls.entra, { timeout: 30_000 });
    await page.getByLabel('Password').fill(CONTOSO_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Back on MAGIC's device page: the consent, approved with the Microsoft 365 sign-in.
    await page
      .getByText('Research CLI asks to sign in as you with this access:')
      .first()
      .waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).origin).toBe(urls.magic);
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('You can return to your terminal.').waitFor({ timeout: 30_000 });

    const result = await login.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const whoami = await research(urls.oauth2Public, dir, ['whoami']).done;
    expect(whoami.code).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({
      client_id: 'research-cli',
      ext: { user: { authenticationMode: 'm365', email: 'megan@contoso.test' }, products: ['MAGIC'] },
    });
    await context.close();
  });
});
