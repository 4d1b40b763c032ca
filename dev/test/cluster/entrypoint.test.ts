import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '@acme/cluster/processes';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { buildServices, commandLine, IMAGE_ENV } from './image-env.ts';
import { freePorts } from './ports.ts';

/**
 * The container's entry point (docker/entrypoint.sh) run on this machine, as the image runs it
 * (no Docker engine here): the compiled output, the image's environment, the checkout as /app.
 * The parts that need no database are here; the services on PostgreSQL are in
 * entrypoint.pg.int.test.ts.
 */
const entrypoint = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('sh', [join(repoRoot, 'docker/entrypoint.sh'), ...args], {
    cwd: repoRoot,
    env: {
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      APP_DIR: repoRoot,
      ...IMAGE_ENV,
      ...env,
    },
    encoding: 'utf8',
    timeout: 30_000,
  });

describe('docker/entrypoint.sh against the compiled output', () => {
  let cluster: RunningCluster;
  let distDir: string;

  beforeAll(async () => {
    buildServices();
    distDir = mkdtempSync(join(tmpdir(), 'account-dist-'));
    writeFileSync(join(distDir, 'index.html'), '<!doctype html><title>app</title><div id="root"></div>');
    cluster = await startProcessCluster({
      parts: ['account'],
      runtime: 'image',
      ports: await freePorts(),
      accountDistDir: distDir,
      logLevel: 'warn',
      // The cluster's development-only Teams host page is off, as in production.
      extraEnv: { ...IMAGE_ENV, ACCOUNT_DIST_DIR: distDir, DEV_TEAMS_HOST: 'false' },
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    rmSync(distDir, { recursive: true, force: true });
  }, 60_000);

  it('runs the account server from its compiled JavaScript, without a TypeScript loader', () => {
    const args = commandLine(cluster.processes[0]!.child.pid!);
    expect(args).toContain('--conditions=compiled');
    expect(args.at(-1)).toBe('apps/account/server/dist/server/main.js');
    expect(args.join(' ')).not.toMatch(/tsx|\.ts\b/);
  });

  it('serves the app with its runtime configuration and security headers', async () => {
    // A signed-in route: the login route with nothing pending is the authorization redirect.
    const page = await fetch(`${cluster.urls.platform}/account/settings`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<div id="root">');
    const config = await fetch(`${cluster.urls.platform}/account/runtime-config.js`);
    expect(config.status).toBe(200);
    expect(await config.text()).toContain(cluster.urls.identityPublic);
  });

  it('stops on SIGTERM with exit code 0', async () => {
    expect(await cluster.processes[0]!.stop()).toBe(0);
  });

  it('refuses a service without DATABASE_URL (64) and an unknown part (64), and prints its usage', () => {
    const identity = entrypoint(['identity']);
    expect(identity.status).toBe(64);
    expect(identity.stderr).toContain('identity needs DATABASE_URL');
    expect(entrypoint(['nonsense']).status).toBe(64);
    const help = entrypoint(['help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('Usage: docker run IMAGE <part>');
  });
});
