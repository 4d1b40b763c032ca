import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, sql, type Database } from '../src/index.ts';
import { createRateLimiter, rateLimitTableStatements, type Budget } from '../src/rate-limit.ts';

const MIN = 60_000;
const table = { table: 'test_rate_limits', scope: 'burst' };

describe('the rate limiter', () => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDb();
    await migrate(
      db,
      'rate-limit-test',
      rateLimitTableStatements(table.table).map((statement, i) => ({ name: `00${i}`, sql: statement })),
    );
  });
  afterAll(() => db.close());

  it('of 50 parallel hits on a limit of 20, exactly 20 pass and 30 are refused with the seconds left', async () => {
    const budget: Budget = { limit: 20, windowMs: MIN, windows: 'aligned' };
    const limiter = createRateLimiter(db.kysely, table, budget);
    const now = new Date('2026-03-01T10:00:15.000Z');
    const verdicts = await Promise.all(Array.from({ length: 50 }, () => limiter.hit('192.0.2.1', now)));
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(20);
    const refused = verdicts.filter((v) => !v.allowed);
    expect(refused).toHaveLength(30);
    for (const v of refused) expect(v.retryAfterSec).toBe(45);
    // Every hit was counted once: the counts handed out are 1…50, each once.
    expect(verdicts.map((v) => v.used).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
    // Another key and another scope have their own budgets.
    expect((await limiter.hit('192.0.2.2', now)).allowed).toBe(true);
    expect(
      (await createRateLimiter(db.kysely, { ...table, scope: 'other' }, budget).hit('192.0.2.1', now))
        .allowed,
    ).toBe(true);
    // The next aligned window starts afresh.
    expect((await limiter.hit('192.0.2.1', new Date('2026-03-01T10:01:00.000Z'))).used).toBe(1);
  });

  it('first-attempt windows run a full window from the first hit; a refund gives one attempt back', async () => {
    const budget: Budget = { limit: 3, windowMs: MIN };
    const limiter = createRateLimiter(db.kysely, { ...table, scope: 'first' }, budget);
    const t0 = new Date('2026-03-01T11:00:40.000Z');
    const at = (ms: number) => new Date(t0.getTime() + ms);
    for (let i = 0; i < 3; i++) expect((await limiter.hit('k', t0)).allowed).toBe(true);
    expect(await limiter.hit('k', at(30_000))).toEqual({ allowed: false, used: 4, retryAfterSec: 30 });
    await limiter.refund('k');
    await limiter.refund('k');
    expect((await limiter.hit('k', at(59_000))).allowed).toBe(true);
    expect((await limiter.hit('k', at(60_000))).used).toBe(1);
  });

  it('a new window clears the scope’s windows that ended over an hour ago, and no other scope’s', async () => {
    const old = new Date('2026-03-01T08:00:00.000Z');
    const budget: Budget = { limit: 5, windowMs: MIN };
    await createRateLimiter(db.kysely, { ...table, scope: 'sweep' }, budget).hit('stale', old);
    await createRateLimiter(db.kysely, { ...table, scope: 'kept' }, budget).hit('stale', old);
    await createRateLimiter(db.kysely, { ...table, scope: 'sweep' }, budget).hit(
      'fresh',
      new Date('2026-03-01T12:00:00.000Z'),
    );
    const { rows } = await sql<{ scope: string; key: string }>`
      select scope, key from test_rate_limits where key in ('stale', 'fresh') order by scope, key`.execute(
      db.kysely,
    );
    expect(rows).toEqual([
      { scope: 'kept', key: 'stale' },
      { scope: 'sweep', key: 'fresh' },
    ]);
  });
});
