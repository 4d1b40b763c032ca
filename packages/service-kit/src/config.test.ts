import { describe, expect, it } from 'vitest';
import { databaseFromEnv } from './config.ts';

describe('databaseFromEnv', () => {
  it('defaults to the embedded database and a pool of 10', () => {
    expect(databaseFromEnv({})).toEqual({ url: undefined, poolMax: 10 });
    expect(databaseFromEnv({ DATABASE_URL: '', DATABASE_POOL_MAX: '' })).toEqual({
      url: undefined,
      poolMax: 10,
    });
  });

  it('reads DATABASE_URL and DATABASE_POOL_MAX', () => {
    expect(databaseFromEnv({ DATABASE_URL: 'postgres://db/app', DATABASE_POOL_MAX: '25' })).toEqual({
      url: 'postgres://db/app',
      poolMax: 25,
    });
  });

  it.each(['0', '-1', '2.5', 'many', '5000'])('refuses DATABASE_POOL_MAX=%s', (value) => {
    expect(() => databaseFromEnv({ DATABASE_POOL_MAX: value })).toThrow(/DATABASE_POOL_MAX/);
  });
});
