import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli-commands.ts';
import { Browser, login, startHarness, traits, type Harness } from '../../identity/test/harness.ts';

/** `npm run admin -- identities:import file.jsonl` against a real identity service. */

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), 'identities-import-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const PASSWORD = 'an old password kept elsewhere 3';
const salt = randomBytes(16);
const HASH = `$pbkdf2-sha256$i=1000,l=32$${salt.toString('base64')}$${pbkdf2Sync(PASSWORD, salt, 1000, 32, 'sha256').toString('base64')}`;

const line = (email: string, hashed = HASH) =>
  JSON.stringify({
    schema_id: 'default',
    traits: traits(email),
    verifiable_addresses: [{ value: email, verified: true, via: 'email' }],
    credentials: { password: { config: { hashed_password: hashed } } },
  });

async function run(file: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['identities:import', file], {
    env: { IDENTITY_ADMIN_URL: h.adminUrl },
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  });
  return { code, summary: out.length ? JSON.parse(out.join('\n')) : undefined, err };
}

describe('identities:import', () => {
  it('streams a JSONL file in batches with a progress line each, names failed lines, and is idempotent by email', async () => {
    const file = join(dir, 'people.jsonl');
    const lines = Array.from({ length: 2300 }, (_, i) => line(`cli-${i}@example.com`));
    lines.splice(10, 0, '{not json');
    lines.splice(20, 0, line('cli-bad-hash@example.com', '$scrypt$ln=3,r=8,p=1$c2FsdA$aGFzaA'));
    lines.push('');
    writeFileSync(file, lines.join('\n'));

    const first = await run(file);
    expect(first.code).toBe(1);
    expect(first.summary).toEqual({ lines: 2302, imported: 2300, alreadyThere: 0, failed: 2 });
    expect(first.err).toContain('line 11: not JSON');
    expect(first.err.some((l) => l.startsWith('line 21: '))).toBe(true);
    const progress = first.err.filter((l) => l.startsWith('identities:import: '));
    expect(progress).toHaveLength(3);
    expect(progress.at(-1)).toBe('identities:import: 2302 lines, 2300 imported, 0 already there, 2 failed');

    const again = await run(file);
    expect(again.summary).toEqual({ lines: 2302, imported: 0, alreadyThere: 2300, failed: 2 });
    const count = await h.db.kysely
      .selectFrom('identity_identities')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(2300);

    expect((await login(new Browser(h.publicUrl), 'cli-1234@example.com', PASSWORD)).status).toBe(200);
  }, 120_000);

  it('abuse: a missing file or a second argument is a usage error, and nothing is sent', async () => {
    const missing = await run(join(dir, 'nope.jsonl'));
    expect(missing.code).toBe(1);
    expect(missing.err.join('\n')).toMatch(/ENOENT/);
    const err: string[] = [];
    const code = await runCli(['identities:import', 'a.jsonl', 'b.jsonl'], {
      env: { IDENTITY_ADMIN_URL: h.adminUrl },
      out: () => undefined,
      err: (t) => err.push(t),
    });
    expect(code).toBe(2);
    expect(err.join('\n')).toContain('identities:import takes one file');
  });
});
