import { execFile, spawnSync } from 'node:child_process';
import { createPublicKey, verify, type JsonWebKey } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_USERS } from '@acme/users';
import { launchBrowser } from '../../e2e/browser.ts';
import { enterEmail } from '../../e2e/journeys.ts';

/**
 * `npm run deploy:local` as an operator runs it: the Kubernetes manifests played with podman against
 * a PostgreSQL pod, behind nginx, on the browser-facing ports (shifted by DEPLOY_PORT_OFFSET), with
 * the demo accounts; a browser signs in through it, and keeps signing in while a replica is killed.
 * The images are those `npm run image` built (scripts/test.mjs builds them before this file runs).
 */
const root = join(import.meta.dirname, '..', '..');
const offset = Number(process.env.DEPLOY_PORT_OFFSET ?? 0);
const url = (port: number) => `http://localhost:${port + offset}`;
const platform = url(4000);
const issuer = url(4444);
const env = {
  ...process.env,
  DEPLOY_PORT_OFFSET: String(offset),
  CONTAINERS_CONF: join(process.env.ACME_CONTAINERS_DIR ?? '/var/tmp/acme-account', 'containers.conf'),
};
const podman = (...args: string[]) => spawnSync('podman', args, { encoding: 'utf8', env, timeout: 60_000 });
const deployLocal = (...args: string[]) =>
  promisify(execFile)(
    process.execPath,
    ['--conditions=compiled', join(root, 'scripts', 'deploy-local.mjs'), ...args],
    { cwd: root, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
  );
/** The pods `deploy:local` plays: the database, the migration Job's, one per replica, nginx. */
const PARTS = ['identity', 'oauth2', 'users', 'agent', 'account'];
const mine = new Set([
  `postgres-${offset}`,
  `nginx-${offset}`,
  ...PARTS.flatMap((part) => [0, 1].map((replica) => `${part}-${replica}-${offset}`)),
]);
const pods = () =>
  podman('pod', 'ps', '--format', '{{.Name}}')
    .stdout.split('\n')
    .filter((name) => mine.has(name) || (name.startsWith('migrate-') && name.endsWith(`-${offset}`)));

type Browser = Awaited<ReturnType<typeof launchBrowser>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;
let browser: Browser | undefined;
beforeAll(async () => {
  try {
    await deployLocal('--no-build', '--demo');
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`npm run deploy:local failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`, {
      cause: err,
    });
  }
  browser = await launchBrowser();
}, 600_000);
afterAll(async () => {
  await browser?.close();
  // Whatever happened above: nothing of the deployment stays behind.
  await deployLocal('down').catch(() => undefined);
}, 120_000);

/**
 * The claims of a JWT whose signature one key of the issuer's JWKS verifies (ES256 or RS256), issued
 * by `issuer` and not expired; throws otherwise.
 */
async function verifiedClaims(jwt: string): Promise<Record<string, unknown>> {
  const [header, payload, signature] = jwt.split('.') as [string, string, string];
  const part = (b64: string) =>
    JSON.parse(Buffer.from(b64, 'base64url').toString()) as Record<string, unknown>;
  const { kid, alg } = part(header) as { kid: string; alg: string };
  const { keys } = (await (await fetch(`${issuer}/.well-known/jwks.json`)).json()) as {
    keys: (JsonWebKey & { kid: string })[];
  };
  const jwk = keys.find((k) => k.kid === kid);
  if (!jwk) throw new Error(`no key ${kid} in the JWKS`);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const signed = Buffer.from(`${header}.${payload}`);
  const sig = Buffer.from(signature, 'base64url');
  const ok =
    alg === 'ES256'
      ? verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, sig)
      : alg === 'RS256' && verify('sha256', signed, key, sig);
  if (!ok) throw new Error(`the token's ${alg} signature does not verify`);
  const claims = part(payload);
  if (claims.iss !== issuer) throw new Error(`issued by ${String(claims.iss)}`);
  if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) throw new Error('expired');
  return claims;
}

/** The access token the app keeps in its `oauth2_token` cookie after a sign-in. */
async function accessToken(page: Page): Promise<string> {
  const cookie = (await page.context().cookies(platform)).find((c) => c.name === 'oauth2_token');
  expect(cookie, 'the app keeps its token in the oauth2_token cookie').toBeDefined();
  const token = JSON.parse(decodeURIComponent(cookie!.value)) as { accessToken: string };
  return token.accessToken;
}

/** Email, then password, then the research page (the platform's landing page once signed in). */
async function signIn(page: Page, user: { email: string }, beforePassword?: () => void): Promise<void> {
  await page.goto(`${platform}/`);
  await page.waitForURL(/\/account\/login/, { timeout: 30_000 });
  await enterEmail(page, user.email);
  await page.getByLabel('Password').waitFor({ timeout: 30_000 });
  beforePassword?.();
  await page.getByLabel('Password').fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${platform}/research`, { timeout: 30_000 });
  await page.getByText(user.email).first().waitFor({ timeout: 30_000 });
}

describe('npm run deploy:local: the manifests played with podman, behind nginx', () => {
  it('a demo user signs in with a password in Chromium, lands on /research, and the access token verifies against the JWKS', async () => {
    const context = await browser!.newContext();
    const page = await context.newPage();
    await signIn(page, DEMO_USERS[0]);
    const claims = await verifiedClaims(await accessToken(page));
    expect(claims.sub).toBeTruthy();
    // A token with one byte of its payload changed is refused: the check above can fail.
    const [h, p, sig] = (await accessToken(page)).split('.');
    const forged = Buffer.from(p!, 'base64url').toString().replace('"iss"', '"iss" ');
    await expect(verifiedClaims(`${h}.${Buffer.from(forged).toString('base64url')}.${sig}`)).rejects.toThrow(
      /does not verify/,
    );
    await context.close();
  });

  it('podman kill of one identity replica in the middle of the sign-in: the journey retried against the other replica completes', async () => {
    const victim = `identity-0-${offset}-identity`;
    let killed = false;
    const kill = () => {
      if (killed) return;
      killed = true;
      const r = podman('kill', victim);
      expect(r.status, r.stderr).toBe(0);
    };
    const attempts: string[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      const context = await browser!.newContext();
      const page = await context.newPage();
      try {
        // The login flow is made (on either replica) before the kill; the password goes after it.
        await signIn(page, DEMO_USERS[1], kill);
        expect((await verifiedClaims(await accessToken(page))).sub).toBeTruthy();
        attempts.push('completed');
        break;
      } catch (err) {
        attempts.push(`failed: ${String(err).split('\n')[0]}`);
      } finally {
        await context.close();
      }
    }
    console.warn(`sign-in with ${victim} killed mid-journey: ${attempts.join('; ')}`);
    expect(killed).toBe(true);
    expect(podman('inspect', '--format', '{{.State.Status}}', victim).stdout.trim()).toBe('exited');
    expect(attempts.at(-1)).toBe('completed');
  });

  it('npm run deploy:local -- down removes every pod and the generated secret', async () => {
    expect(pods().length).toBeGreaterThan(PARTS.length * 2);
    await deployLocal('down');
    expect(pods()).toEqual([]);
    expect(podman('secret', 'ls', '--format', '{{.Name}}').stdout).not.toContain(
      `acme-account-secrets-${offset}`,
    );
  });
});
