import { sql, type Kysely } from 'kysely';
import type { IdentityDb } from '../db/schema.ts';
import { lockoutDelayMs, type LockoutPolicy } from './backoff.ts';

type Db = Kysely<IdentityDb>;

/**
 * Attempt counters that decide in the same statement that counts. An attempt is counted BEFORE the
 * secret is checked and the verdict comes back from that one `INSERT … ON CONFLICT DO UPDATE …
 * RETURNING`, so parallel requests queue on the row lock and cannot all read "under the limit"
 * before any of them writes. A correct secret then gives its attempt back (or resets the count).
 * The rows live in PostgreSQL, so every instance of the service shares them.
 */

export interface LoginAdmission {
  /** Whether this attempt may check the password. */
  admitted: boolean;
  /** Consecutive failures counted so far, this attempt included when admitted. */
  failures: number;
  lockedUntil: Date | null;
}

/**
 * Per-account password lockout (progressive, always ending): counts one attempt unless a lockout
 * is running; the attempt that reaches the threshold starts a lockout of base × 2^(n − threshold),
 * capped at max. After `resetAfterMs` without failures or lockout the count starts again.
 */
export async function admitLogin(
  db: Db,
  key: string,
  now: Date,
  policy: LockoutPolicy,
): Promise<LoginAdmission> {
  const forgetBefore = new Date(now.getTime() - policy.resetAfterMs);
  const firstLock = lockoutDelayMs(1, policy);
  const locked = sql<boolean>`coalesce(t.locked_until > ${now}, false)`;
  // Quiet time counts from the end of the last lockout, or from the last failure.
  const next = sql<number>`case when greatest(t.updated_at, coalesce(t.locked_until, t.updated_at)) <= ${forgetBefore} then 1 else t.failures + 1 end`;
  const delayMs = sql<number>`least(${policy.baseMs}::float8 * power(2::float8, least(${next} - ${policy.threshold}, 40)), ${policy.maxMs}::float8)`;
  const row = await sql<{ admitted: boolean; failures: number; locked_until: Date | null }>`
    insert into identity_login_throttle as t (identifier, failures, locked_until, updated_at, admitted)
    values (${key}, 1, ${firstLock > 0 ? new Date(now.getTime() + firstLock) : null}, ${now}, true)
    on conflict (identifier) do update set
      admitted = not ${locked},
      failures = case when ${locked} then t.failures else ${next} end,
      locked_until = case
        when ${locked} then t.locked_until
        when ${next} >= ${policy.threshold}
          then ${now}::timestamptz + ${delayMs} * interval '1 millisecond'
        else null end,
      updated_at = case when ${locked} then t.updated_at else ${now} end
    returning admitted, failures, locked_until`.execute(db);
  const r = row.rows[0]!;
  return {
    admitted: r.admitted,
    failures: r.failures,
    lockedUntil: r.locked_until === null ? null : new Date(r.locked_until),
  };
}

export interface Budget {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

export interface BudgetVerdict {
  allowed: boolean;
  /** Attempts counted in the current window, this one included. */
  used: number;
  /** Seconds until the window ends (0 when allowed). */
  retryAfterSec: number;
}

/**
 * Counts one attempt against a fixed-window budget (`scope` names the limit, `key` what it counts)
 * and says in the same statement whether it fits. Attempts past the limit keep being counted, so
 * hammering does not help.
 */
export async function takeBudget(
  db: Db,
  scope: string,
  key: string,
  now: Date,
  budget: Budget,
): Promise<BudgetVerdict> {
  const windowOpen = new Date(now.getTime() - budget.windowMs);
  const expired = sql<boolean>`identity_attempts.window_start <= ${windowOpen}`;
  const row = await db
    .insertInto('identity_attempts')
    .values({ scope, key, window_start: now, count: 1 })
    .onConflict((oc) =>
      oc.columns(['scope', 'key']).doUpdateSet({
        count: sql<number>`case when ${expired} then 1 else identity_attempts.count + 1 end`,
        window_start: sql<Date>`case when ${expired} then ${now} else identity_attempts.window_start end`,
      }),
    )
    .returning(['count', 'window_start'])
    .executeTakeFirstOrThrow();
  const allowed = row.count <= budget.limit;
  const windowEnd = new Date(row.window_start).getTime() + budget.windowMs;
  return {
    allowed,
    used: row.count,
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
  };
}

/** Gives back one attempt taken with `takeBudget` (the secret was right, so it was no guess). */
export async function refundBudget(db: Db, scope: string, key: string): Promise<void> {
  await db
    .updateTable('identity_attempts')
    .set({ count: sql<number>`greatest(count - 1, 0)` })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .execute();
}

/**
 * Ends every lockout and budget kept for a sign-in identifier and, when known, its identity
 * (an operator's `account:unlock`, or a completed recovery).
 */
export async function unlockAccount(db: Db, identifier: string, identityId?: string): Promise<void> {
  await db.deleteFrom('identity_login_throttle').where('identifier', '=', identifier).execute();
  const keys = identityId ? [identifier, identityId] : [identifier];
  await db
    .deleteFrom('identity_attempts')
    .where('key', 'in', keys)
    .where('scope', 'not like', 'ip:%')
    .execute();
}
