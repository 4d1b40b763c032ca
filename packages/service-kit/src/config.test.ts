import { describe, expect, it } from 'vitest';
import { databaseFromEnv } from './config.ts';

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
