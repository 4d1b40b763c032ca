import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTRY_POINTS, repoRoot } from '@acme/cluster/processes';
import { startProcessCluster, type RunningCluster } from '@acme/cluster/system';
import { freePorts } from './ports.ts';

/**
 * The account app server's own entry point as the process cluster starts it: MAGIC serves the
 * Teams host page stand-in on its own origin (DEV_TEAMS_HOST), the other applications do not, and
 * the switch is refused in production. A stand-in build (one index.html) is enough here.
 */
describe('the account entry point and the Teams host page', () => {
  let cluster: RunningCluster;
  let distDir: string;

  beforeAll(async () => {
    distDir = mkdtempSync(join(tmpdir(), 'account-dist-'));
    writeFileSync(join(distDir, 'index.html'), '<!doctype html><title>app</title><div id="root"></div>');
    cluster = await startProcessCluster({
      parts: ['account'],
      ports: await freePorts(),
      accountDistDir: distDir,
      logLevel: 'warn',
    });
  }, 120_000);
  afterAll(async () => {
    await cluster?.close();
    rmSync(distDir, { recursive: true, force: true });
  }, 60_000);

  it("serves the Teams host page on MAGIC's origin only", async () => {
    const magic = await fetch(`${cluster.urls.magic}/dev/teams-host?user=megan@contoso.test`);
    expect(magic.status).toBe(200);
    const page = await magic.text();
    expect(page).toContain('Microsoft Teams (development host)');
    // Its tokens come from the Entra stand-in the cluster points MAGIC at.
    expect(page).toContain(JSON.stringify(cluster.urls.entra).slice(1, -1));
    const platform = await fetch(`${cluster.urls.platform}/dev/teams-host`);
    expect(await platform.text()).not.toContain('development host');
  });

  it('refuses DEV_TEAMS_HOST with NODE_ENV=production', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, ENTRY_POINTS.account)], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'production',
        DEV_TEAMS_HOST: 'true',
        ACCOUNT_DIST_DIR: distDir,
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('DEV_TEAMS_HOST is a development stand-in');
  }, 60_000);
});
