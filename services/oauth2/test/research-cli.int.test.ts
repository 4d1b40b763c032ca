import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { approveDevice, DEVICE_CLIENT } from './device-harness.ts';
import { DEFAULT_EXT, useTestServer, type TestServer } from './harness.ts';

/**
 * The reference CLI (`packages/research-cli`) and the Python snippet of docs/integrations.md, run as the user runs
 * them (child processes) against a real authorization server; the browser side is the harness.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'packages/research-cli/src/cli.ts');
const server = useTestServer({ env: { OAUTH2_DEVICE_POLL_INTERVAL: '1' } });
const shortLived = useTestServer({ env: { OAUTH2_DEVICE_POLL_INTERVAL: '1', OAUTH2_DEVICE_CODE_TTL: '2' } });
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Run {
  /** Resolves with the user code once the program printed it. */
  userCode: Promise<string>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function run(command: string, args: string[], env: Record<string, string>): Run {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
  let stdout = '';
  let stderr = '';
  let found: (code: string) => void = () => undefined;
  const userCode = new Promise<string>((r) => (found = r));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const match = /\b([BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4})\b/.exec(stdout);
    if (match) found(match[1]!);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((r) =>
    child.on('close', (code) => r({ code, stdout, stderr })),
  );
  return { userCode, done };
}

async function cli(target: TestServer, args: string[], dir: string): Promise<Run> {
  return run(process.execPath, ['--import', 'tsx', CLI, ...args], {
    RESEARCH_ISSUER: target.publicUrl,
    RESEARCH_CONFIG_DIR: dir,
    RESEARCH_NO_BROWSER: '1',
  });
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'research-cli-'));
  dirs.push(dir);
  return join(dir, 'config');
}

async function refreshWith(target: TestServer, token: string) {
  const res = await fetch(`${target.publicUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: DEVICE_CLIENT,
    }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('npm run research -- login | whoami | logout', () => {
  it('login stores the tokens with mode 0600; whoami prints the claims and refreshes; logout revokes the refresh token', async () => {
    const dir = await tempDir();
    const login = await cli(server, ['login'], dir);
    await approveDevice(server, await login.userCode, { subject: 'ada-identity' });
    const result = await login.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`${'http://localhost:4000'}/account/device`);
    expect(result.stdout).toContain('Signed in (subject ada-identity).');

    const file = join(dir, 'tokens.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const saved = JSON.parse(await readFile(file, 'utf8'));
    expect(saved.refreshToken).toMatch(/^ory_rt_/);

    const whoami = await (await cli(server, ['whoami'], dir)).done;
    expect(whoami.code).toBe(0);
    const claims = JSON.parse(whoami.stdout);
    expect(claims).toMatchObject({ sub: 'ada-identity', client_id: DEVICE_CLIENT, ext: DEFAULT_EXT });

    // A due access token is refreshed, and the rotated refresh token is saved.
    await writeFile(file, JSON.stringify({ ...saved, expiresAt: Date.now() - 1000 }), { mode: 0o600 });
    const refreshed = await (await cli(server, ['whoami'], dir)).done;
    expect(refreshed.code).toBe(0);
    const after = JSON.parse(await readFile(file, 'utf8'));
    expect(after.refreshToken).toMatch(/^ory_rt_/);
    expect(after.refreshToken).not.toBe(saved.refreshToken);
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const logout = await (await cli(server, ['logout'], dir)).done;
    expect(logout.code).toBe(0);
    await expect(stat(file)).rejects.toThrow();
    expect((await refreshWith(server, after.refreshToken)).body.error).toBe('invalid_grant');
    const whoamiAfter = await (await cli(server, ['whoami'], dir)).done;
    expect(whoamiAfter.code).toBe(1);
    expect(whoamiAfter.stderr).toContain('Not signed in');
  });

  it('a denied code ends with access_denied', async () => {
    const dir = await tempDir();
    const login = await cli(server, ['login'], dir);
    await approveDevice(server, await login.userCode, { deny: true });
    const result = await login.done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: access_denied');
  });

  it('an expired code ends with expired_token', async () => {
    const dir = await tempDir();
    const result = await (await cli(shortLived, ['login'], dir)).done;
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: expired_token');
  });
});

describe('the Python snippet of docs/integrations.md (urllib only)', () => {
  const python = spawnSync('python3', ['--version']).status === 0;

  it.runIf(python)("runs with the machine's python3 and prints the claims after approval", async () => {
    const readme = await readFile(join(ROOT, 'docs', 'integrations.md'), 'utf8');
    const block = /<!-- research-python:start -->\s*```python\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeTruthy();
    const py = run('python3', ['-c', block!], { RESEARCH_ISSUER: server.publicUrl });
    await approveDevice(server, await py.userCode, { subject: 'notebook-user' });
    const result = await py.done;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const claims = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(claims).toMatchObject({ sub: 'notebook-user', client_id: DEVICE_CLIENT, ext: DEFAULT_EXT });
  });
});
