import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENTRY_POINTS, repoRoot } from '@acme/cluster/processes';

/**
 * A malformed setting stops a part at start with exit status 78 (EX_CONFIG) and one line naming
 * the setting: the account app server, now that it parses its settings in its config.ts, and a
 * service given a bad value under a setting's old name.
 */
function start(entry: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, entry)], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

const fatalLines = (stderr: string) =>
  stderr
    .split('\n')
    .filter(Boolean)
    .filter((line) => (JSON.parse(line) as { level: string }).level === 'fatal');

describe('a malformed setting', () => {
  it('stops the account app server with 78 and one line naming it', () => {
    const run = start(ENTRY_POINTS.account, {
      ACCOUNT_APPS: 'platform,nope',
      ACCOUNT_DIST_DIR: '/nonexistent',
    });
    expect(run.status).toBe(78);
    const fatal = fatalLines(run.stderr);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain('ACCOUNT_APPS');
  }, 60_000);

  it('stops a service with 78 when given under an old name, after the warning naming both', () => {
    const run = start(ENTRY_POINTS.agent, {
      AGENT_UPSTREAM_TIMEOUT_MS: 'soon',
      AGENT_PUBLIC_PORT: '0',
      AGENT_ADMIN_PORT: '0',
    });
    expect(run.status).toBe(78);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines.some((l) => l.includes('"setting":"AGENT_UPSTREAM_TIMEOUT_MS"'))).toBe(true);
    const fatal = fatalLines(run.stderr);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toContain('UPSTREAM_TIMEOUT_MS');
    expect(run.stderr).not.toContain('soon"');
  }, 60_000);
});
