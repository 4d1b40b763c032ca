import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  applyRenames,
  databaseFromEnv,
  optionalSecretListSchema,
  secretListSchema,
  settingsFromFiles,
} from './config.ts';

describe('databaseFromEnv', () => {
  it('defaults to the embedded database, a pool of 10 and 200 named statements', () => {
    const defaults = { url: undefined, poolMax: 10, preparedPerConnection: 200 };
    expect(databaseFromEnv({})).toEqual(defaults);
    expect(
      databaseFromEnv({ DATABASE_URL: '', DATABASE_POOL_MAX: '', DATABASE_PREPARED_STATEMENTS: '' }),
    ).toEqual(defaults);
  });

  it('reads DATABASE_URL, DATABASE_POOL_MAX and DATABASE_PREPARED_STATEMENTS', () => {
    expect(
      databaseFromEnv({
        DATABASE_URL: 'postgres://db/app',
        DATABASE_POOL_MAX: '25',
        DATABASE_PREPARED_STATEMENTS: '0',
      }),
    ).toEqual({ url: 'postgres://db/app', poolMax: 25, preparedPerConnection: 0 });
  });

  it.each(['0', '-1', '2.5', 'many', '5000'])('refuses DATABASE_POOL_MAX=%s', (value) => {
    expect(() => databaseFromEnv({ DATABASE_POOL_MAX: value })).toThrow(/DATABASE_POOL_MAX/);
  });
});

describe('databaseFromEnv, prepared statements', () => {
  it.each(['-1', 'off', '1.5'])('refuses DATABASE_PREPARED_STATEMENTS=%s', (value) => {
    expect(() => databaseFromEnv({ DATABASE_PREPARED_STATEMENTS: value })).toThrow(
      /DATABASE_PREPARED_STATEMENTS/,
    );
  });
});

describe('applyRenames', () => {
  const renames = { TRUST_PROXY: ['IDENTITY_TRUST_PROXY', 'OAUTH2_TRUST_PROXY'] };

  it('reads an old name as the new one, with one warning naming both and never the value', () => {
    const lines: string[] = [];
    const env = applyRenames('identity', { IDENTITY_TRUST_PROXY: '10.1.2.0/24' }, renames, (l) =>
      lines.push(l),
    );
    expect(env.TRUST_PROXY).toBe('10.1.2.0/24');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      name: 'identity',
      setting: 'IDENTITY_TRUST_PROXY',
      replacement: 'TRUST_PROXY',
    });
    expect(lines[0]).not.toContain('10.1.2.0');
  });

  it('keeps the new name when both are set, and ignores empty and absent old names', () => {
    const lines: string[] = [];
    const warn = (l: string) => lines.push(l);
    expect(applyRenames('x', { TRUST_PROXY: '1', OAUTH2_TRUST_PROXY: '2' }, renames, warn).TRUST_PROXY).toBe(
      '1',
    );
    expect(lines).toHaveLength(1);
    expect(applyRenames('x', { IDENTITY_TRUST_PROXY: '' }, renames, warn).TRUST_PROXY).toBeUndefined();
    expect(applyRenames('x', {}, renames, warn)).toEqual({});
    expect(lines).toHaveLength(1);
  });
});

describe('secret lists', () => {
  const schema = z.object({
    X_SECRET: secretListSchema({ description: 'a test secret', min: 32 }),
    Y_SECRET: optionalSecretListSchema({ description: 'an optional one', min: 32 }),
  });
  const A = 'a'.repeat(32);
  const B = 'b'.repeat(40);

  it('is the entries in order, the first first, and is marked secret with its description', () => {
    expect(schema.parse({ X_SECRET: `${A}, ${B}` }).X_SECRET).toEqual([A, B]);
    expect(schema.parse({ X_SECRET: A }).Y_SECRET).toBeUndefined();
    expect(z.globalRegistry.get(schema.shape.X_SECRET)).toEqual({
      description: 'a test secret',
      secret: true,
    });
    expect(z.globalRegistry.get(schema.shape.Y_SECRET)).toMatchObject({ secret: true });
  });

  it.each([
    ['an empty entry', `${A},,${B}`, /empty/],
    ['a trailing comma', `${A},`, /empty/],
    ['a duplicate', `${A},${B},${A}`, /twice/],
    ['a short entry', `${A},short-${'s'.repeat(20)}`, /at least 32/],
  ])('refuses %s, naming the setting and never echoing the value', (_what, value, message) => {
    const parsed = schema.safeParse({ X_SECRET: value });
    expect(parsed.success).toBe(false);
    const text = z.prettifyError(parsed.error!) + JSON.stringify(parsed.error!.issues);
    expect(text).toMatch(message);
    expect(text).toContain('X_SECRET');
    expect(text).not.toContain('aaaaaaaa');
    expect(text).not.toContain('bbbbbbbb');
    expect(text).not.toContain('short-');
  });
});

describe('settings read from files (X_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'settings-'));
  const file = join(dir, 'admin-key');
  writeFileSync(file, 'k'.repeat(40) + '\n');

  it('reads X from the file named by X_FILE, without the trailing line break', () => {
    const env = settingsFromFiles({ X_KEY_FILE: file, OTHER: '1' }, ['X_KEY']);
    expect(env).toEqual({ X_KEY: 'k'.repeat(40), OTHER: '1' });
  });

  it('a missing or unreadable file refuses to start, naming its path and not its content', () => {
    expect(() => settingsFromFiles({ X_KEY_FILE: join(dir, 'absent') }, ['X_KEY'])).toThrow(
      new RegExp(`X_KEY_FILE: cannot read ${join(dir, 'absent')} \\(ENOENT\\)`),
    );
    expect(() => settingsFromFiles({ X_KEY_FILE: dir }, ['X_KEY'])).toThrow(/cannot read .* \(EISDIR\)/);
  });

  it('refuses X and X_FILE both set', () => {
    expect(() => settingsFromFiles({ X_KEY: 'v', X_KEY_FILE: file }, ['X_KEY'])).toThrow(
      /X_KEY and X_KEY_FILE are both set/,
    );
  });

  it('DATABASE_URL_FILE is read like DATABASE_URL', () => {
    writeFileSync(join(dir, 'db'), 'postgres://db/app\n');
    expect(databaseFromEnv({ DATABASE_URL_FILE: join(dir, 'db') }).url).toBe('postgres://db/app');
  });
});
