import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, typed, type Database } from '@acme/db';
import type { Kysely } from 'kysely';
import type { IdentityDb } from '../../src/db/schema.ts';
import { migrations } from '../../src/migrations.ts';
import {
  BUDGET_SCOPE,
  admitAccountAttempt,
  admitLogin,
  refundBudget,
  takeBudget,
  unlockAccount,
} from '../../src/throttle/attempts.ts';

const MIN = 60_000;
const policy = { threshold: 10, baseMs: 15 * MIN, maxMs: 24 * 60 * MIN, resetAfterMs: 24 * 60 * MIN };
const t0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(t0.getTime() + ms);

let database: Database;
let db: Kysely<IdentityDb>;
beforeAll(async () => {
  database = await createTestDb();
  await migrate(database, 'identity', migrations);
  db = typed<IdentityDb>(database);
});
afterAll(() => database.close());

describe('attempt counters decide in the statement that counts', () => {
  it('50 concurrent wrong password attempts cannot overshoot the lockout threshold', async () => {
    const verdicts = await Promise.all(
      Array.from({ length: 50 }, () => admitLogin(db, 'race@example.com', t0, policy)),
    );
    expect(verdicts.filter((v) => v.admitted)).toHaveLength(10);
    const row = await db
      .selectFrom('identity_login_throttle')
      .selectAll()
      .where('identifier', '=', 'race@example.com')
      .executeTakeFirstOrThrow();
    expect(row.failures).toBe(10);
    expect(new Date(row.locked_until!).getTime()).toBe(at(15 * MIN).getTime());
  });

  it('50 concurrent wrong codes cannot overshoot a per-address budget', async () => {
    const budget = { limit: 10, windowMs: 60 * MIN };
    const verdicts = await Promise.all(
      Array.from({ length: 50 }, () => takeBudget(db, 'code:address', 'race@example.com', t0, budget)),
    );
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
    expect(verdicts.filter((v) => !v.allowed).every((v) => v.retryAfterSec === 3600)).toBe(true);
    // The window ends, and a fresh one starts.
    expect((await takeBudget(db, 'code:address', 'race@example.com', at(60 * MIN), budget)).allowed).toBe(
      true,
    );
    // A refund gives one attempt back.
    await refundBudget(db, 'code:address', 'race@example.com');
    const v = await takeBudget(db, 'code:address', 'race@example.com', at(61 * MIN), budget);
    expect(v.used).toBe(1);
  });
});

describe('progressive lockout', () => {
  it('a locked account is not locked forever: lockouts expire and double', async () => {
    const key = 'prog@example.com';
    for (let i = 1; i <= 10; i++) expect((await admitLogin(db, key, t0, policy)).admitted).toBe(true);
    expect((await admitLogin(db, key, at(14 * MIN), policy)).admitted).toBe(false);
    // 15 minutes after the 10th failure the account may try again; one more failure: 30 minutes.
    const next = await admitLogin(db, key, at(15 * MIN), policy);
    expect(next).toMatchObject({ admitted: true, failures: 11 });
    expect(next.lockedUntil!.getTime()).toBe(at(45 * MIN).getTime());
    expect((await admitLogin(db, key, at(44 * MIN), policy)).admitted).toBe(false);
    // Hundreds of failures still give a lockout that ends (capped at 24 h).
    let now = 45 * MIN;
    let last = next;
    for (let i = 0; i < 120; i++) {
      last = await admitLogin(db, key, at(now), policy);
      expect(last.admitted).toBe(true);
      now = last.lockedUntil!.getTime() - t0.getTime();
    }
    expect(last.failures).toBe(131);
    const capped = await db
      .selectFrom('identity_login_throttle')
      .select(['locked_until', 'updated_at'])
      .where('identifier', '=', key)
      .executeTakeFirstOrThrow();
    expect(new Date(capped.locked_until!).getTime() - new Date(capped.updated_at).getTime()).toBe(
      24 * 60 * MIN,
    );
    // The operator's unlock ends it at once.
    await unlockAccount(db, key);
    expect((await admitLogin(db, key, at(now - 1), policy)).failures).toBe(1);
  });

  it('a quiet day forgets old failures', async () => {
    const key = 'quiet@example.com';
    for (let i = 0; i < 5; i++) await admitLogin(db, key, t0, policy);
    expect((await admitLogin(db, key, at(24 * 60 * MIN + 1), policy)).failures).toBe(1);
  });
});

describe('one admission for a sign-in attempt (IP budget, then the account)', () => {
  const ipBudget = { limit: 100, windowMs: 10 * MIN };
  const admit = (key: string, address: string, limit = ipBudget.limit, now = t0) =>
    admitAccountAttempt(db, { key, now, policy, ip: { address, budget: { ...ipBudget, limit } } });
  const ipCount = async (address: string) =>
    (
      await db
        .selectFrom('identity_attempts')
        .select('count')
        .where('scope', '=', BUDGET_SCOPE.passwordIp)
        .where('key', '=', address)
        .executeTakeFirst()
    )?.count ?? 0;
  const failures = async (key: string) =>
    (
      await db
        .selectFrom('identity_login_throttle')
        .select('failures')
        .where('identifier', '=', key)
        .executeTakeFirst()
    )?.failures ?? 0;

  it('50 parallel attempts on one account admit the threshold; the refused ones cost the IP nothing', async () => {
    const all = await Promise.all(Array.from({ length: 50 }, () => admit('par@example.com', '192.0.2.50')));
    expect(all.filter((a) => !a.refused)).toHaveLength(10);
    expect(all.filter((a) => a.refused === 'account')).toHaveLength(40);
    expect(all.filter((a) => a.lockStartedUntil)).toHaveLength(1);
    expect(await failures('par@example.com')).toBe(10);
    expect(await ipCount('192.0.2.50')).toBe(10);
  });

  it('an IP past its budget is refused before the account is counted', async () => {
    for (let i = 0; i < 3; i++)
      expect((await admit(`spray${i}@example.com`, '192.0.2.51', 3)).refused).toBeUndefined();
    const over = await admit('sprayed@example.com', '192.0.2.51', 3);
    expect(over).toMatchObject({ refused: 'ip', retryAfterSec: 600 });
    expect(await failures('sprayed@example.com')).toBe(0);
  });

  it('a right secret resets the account and refunds the IP; a 503 gives the attempt back and lifts its lockout', async () => {
    const key = 'settle@example.com';
    for (let i = 0; i < 9; i++) await admit(key, '192.0.2.52');
    const tenth = await admit(key, '192.0.2.52');
    expect(tenth.lockStartedUntil?.getTime()).toBe(at(15 * MIN).getTime());
    await tenth.giveBack();
    expect(await failures(key)).toBe(9);
    expect(await ipCount('192.0.2.52')).toBe(9);
    const right = await admit(key, '192.0.2.52');
    expect(right.refused).toBeUndefined();
    await right.settle(true);
    expect(await failures(key)).toBe(0);
    expect(await ipCount('192.0.2.52')).toBe(9);
  });
});
