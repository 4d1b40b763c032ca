import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The images `npm run image` built (scripts/test.mjs builds them before this file runs), run with
 * podman as an orchestrator would: read-only root filesystem, its own user, a bad setting.
 */
const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { dev?: boolean }>;
};
const env = {
  ...process.env,
  CONTAINERS_CONF: join(process.env.ACME_CONTAINERS_DIR ?? '/var/tmp/acme-account', 'containers.conf'),
};
const podman = (...args: string[]) => spawnSync('podman', args, { encoding: 'utf8', env, timeout: 60_000 });
const image = (part: string) => `acme-account/${part}:${pkg.version}`;
const MB = 1e6;
const started: string[] = [];
afterAll(() => {
  for (const name of started) podman('rm', '-f', '-t', '0', name);
});

/** Every file of an image under /app, listed by the image's own Node. */
function appFiles(part: string): string[] {
  const r = podman(
    'run',
    '--rm',
    '--entrypoint',
    '/usr/local/bin/node',
    image(part),
    '-e',
    "console.log(require('fs').readdirSync('/app', { recursive: true }).join('\\n'))",
  );
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

describe('the service runtime image', () => {
  it('is at most 250 MB', () => {
    const size = Number(podman('image', 'inspect', '--format', '{{.Size}}', image('identity')).stdout);
    expect(size).toBeGreaterThan(100 * MB);
    expect(size).toBeLessThanOrEqual(250 * MB);
  });

  it('holds compiled output and production dependencies only: no sources, tests, stand-ins, e2e or bench', () => {
    const files = appFiles('identity');
    expect(files).toContain('services/identity/dist/main.js');
    expect(files).toContain('apps/account/dist/index.html');
    const ours = files.filter((f) => !f.startsWith('node_modules/'));
    expect(ours.filter((f) => /\.tsx?$|(^|\/)(test|tests|e2e|bench)(\/|$)|\.test\.js$/.test(f))).toEqual([]);
    expect(files.filter((f) => /^(dev|e2e|bench|scripts)(\/|$)/.test(f))).toEqual([]);
    const packages = new Set(
      files
        .filter((f) => /^node_modules\/(@[^/]+\/)?[^/@]+$/.test(f) && !f.startsWith('node_modules/@acme/'))
        .map((f) => f),
    );
    expect(packages.size).toBeGreaterThan(50);
    const dev = [...packages].filter((p) => lock.packages[p]?.dev === true || !lock.packages[p]);
    expect(dev.filter((p) => !/^node_modules\/@[^/]+$/.test(p))).toEqual([]);
    for (const tool of [
      'vite',
      'vitest',
      'typescript',
      'eslint',
      'esbuild',
      'tsx',
      'node',
      'playwright-core',
    ])
      expect(packages.has(`node_modules/${tool}`), tool).toBe(false);
  });

  it('the stand-ins are their own image, and not in the runtime', () => {
    expect(appFiles('stand-ins')).toContain('dev/dist/main.js');
    expect(appFiles('account').some((f) => f.startsWith('dev/') || f === 'node_modules/@acme/dev')).toBe(
      false,
    );
  });

  it('runs the Node version the tests run on, with its labels', () => {
    const tested = spawnSync(join(root, 'node_modules', '.bin', 'node'), ['--version'], {
      encoding: 'utf8',
    }).stdout.trim();
    const r = podman('run', '--rm', '--entrypoint', '/usr/local/bin/node', image('oauth2'), '--version');
    expect(r.stdout.trim()).toBe(tested);
    const labels = JSON.parse(
      podman('image', 'inspect', '--format', '{{json .Labels}}', image('users')).stdout,
    ) as Record<string, string>;
    // The commit the image was built from: this one, or an earlier one of its history.
    const revision = labels['org.opencontainers.image.revision'] ?? '';
    expect(revision).toMatch(/^[0-9a-f]{40}$/);
    expect(spawnSync('git', ['merge-base', '--is-ancestor', revision, 'HEAD'], { cwd: root }).status).toBe(0);
    expect(labels).toMatchObject({
      'org.opencontainers.image.version': pkg.version,
      'org.opencontainers.image.source': expect.stringMatching(/^https:\/\//),
    });
  });

  it('runs on a read-only root filesystem as its own user, tini as PID 1, and passes its health check', async () => {
    const name = `acme-image-test-${process.pid}`;
    started.push(name);
    const r = podman(
      'run',
      '-d',
      '--name',
      name,
      '--read-only',
      '--cap-drop',
      'ALL',
      '--security-opt',
      'no-new-privileges',
      image('account'),
    );
    expect(r.status, r.stderr).toBe(0);
    const inside = (code: string) => podman('exec', name, '/usr/local/bin/node', '-e', code).stdout.trim();
    expect(inside("process.stdout.write(require('fs').readFileSync('/proc/1/comm', 'utf8'))")).toBe('tini');
    expect(inside('process.stdout.write(String(process.getuid()))')).toBe('10001');
    // The server's Node has no `__proto__` accessor (a parsed key of that name stays data).
    const server = inside(
      "const fs = require('fs'); for (const p of fs.readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))) { try { const c = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'); if (c.includes('server/main.js')) process.stdout.write(c.split('\\0').join(' ')); } catch {} }",
    );
    expect(server).toContain('--disable-proto=delete');
    expect(
      inside(
        "try { require('fs').writeFileSync('/app/x', 'x'); console.log('written') } catch (e) { console.log(e.code) }",
      ),
    ).toBe('EROFS');
    let health = podman('healthcheck', 'run', name);
    for (let i = 0; i < 20 && health.status !== 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      health = podman('healthcheck', 'run', name);
    }
    expect(health.status, health.stdout + health.stderr).toBe(0);
  });
});

describe('a missing or malformed setting in a container', () => {
  const run = (part: string, ...envs: string[]) => {
    const started = Date.now();
    // --no-healthcheck: podman would add its own complaint (no systemd to time health checks).
    const r = podman(
      'run',
      '--rm',
      '--read-only',
      '--no-healthcheck',
      ...envs.flatMap((e) => ['-e', e]),
      image(part),
    );
    return { ...r, secs: (Date.now() - started) / 1000 };
  };
  const unreachable = 'DATABASE_URL=postgres://nobody@127.0.0.1:1/none';

  it('a malformed port stops identity at once, non-zero, with one line naming it and no stack trace', () => {
    const r = run('identity', unreachable, 'IDENTITY_PUBLIC_PORT=four');
    expect(r.status).toBe(78);
    expect(r.secs).toBeLessThan(15);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('IDENTITY_PUBLIC_PORT');
    expect(r.stderr).not.toMatch(/\bat [^ ]+ \(|"stack"/);
  });

  it('a missing production secret stops the user service naming it', () => {
    const r = run('users', unreachable);
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('SSO_SECRET_KEY');
    expect(r.stderr).not.toMatch(/"stack"/);
  });

  it('a missing DATABASE_URL stops a service before Node starts, naming it', () => {
    const r = run('oauth2');
    expect(r.status).toBe(64);
    expect(r.stderr).toContain('DATABASE_URL');
  });

  it('a malformed setting of the account server names it', () => {
    const r = run('account', 'ACCOUNT_PORTS=nowhere');
    expect(r.status).toBe(78);
    expect(r.stderr).toContain('ACCOUNT_PORTS');
    expect(r.stderr).not.toMatch(/"stack"/);
  });
});
