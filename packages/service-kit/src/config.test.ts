import { describe, expect, it } from 'vitest';
import { applyRenames, databaseFromEnv } from './config.ts';

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
