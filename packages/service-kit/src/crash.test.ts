import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const crash = fileURLToPath(new URL('./crash.ts', import.meta.url));
const config = fileURLToPath(new URL('./config.ts', import.meta.url));

function run(body: string) {
  const script = `import { exitOnUnhandledErrors } from ${JSON.stringify(crash)};
import { ConfigError, portSchema } from ${JSON.stringify(config)};
exitOnUnhandledErrors('test-process');
${body}
setTimeout(() => { console.log('still running'); process.exit(0); }, 2000);`;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('crash handlers', () => {
  it('an unhandled promise rejection is logged and ends the process with status 1, not swallowed', () => {
    const r = run(`Promise.reject(new Error('boom in a promise'));`);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('still running');
    const line = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(line).toMatchObject({
      level: 'fatal',
      name: 'test-process',
      err: { message: 'boom in a promise' },
    });
    expect(line.msg).toMatch(/unhandledRejection/);
  });

  it('an uncaught exception is logged and ends the process with status 1', () => {
    const r = run(`setTimeout(() => { throw new TypeError('boom in a timer'); }, 10);`);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('still running');
    const line = JSON.parse(r.stderr.trim().split('\n').at(-1)!);
    expect(line).toMatchObject({ level: 'fatal', err: { type: 'TypeError', message: 'boom in a timer' } });
    expect(line.msg).toMatch(/uncaughtException/);
  });

  it('a malformed setting stops the process with status 78 and one line naming it, no stack trace', () => {
    const r = run(
      `const { z } = await import('zod'); z.object({ IDENTITY_PUBLIC_PORT: portSchema(1) }).parse({ IDENTITY_PUBLIC_PORT: 'abc' });`,
    );
    expect(r.status).toBe(78);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!);
    expect(line).toEqual({
      level: 'fatal',
      name: 'test-process',
      msg: expect.stringContaining('IDENTITY_PUBLIC_PORT'),
    });
    expect(r.stderr).not.toMatch(/\bat \S+ \(|stack/);
  });

  it('a missing setting (a ConfigError) stops the process with status 78 and its message alone', () => {
    const r = run(`throw new ConfigError('SSO_SECRET_KEY is required in production');`);
    expect(r.status).toBe(78);
    expect(JSON.parse(r.stderr.trim())).toEqual({
      level: 'fatal',
      name: 'test-process',
      msg: 'invalid configuration: SSO_SECRET_KEY is required in production',
    });
  });
});
