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
 *
 * This is the only counting mechanism of the service: the per-account lockout (`admitLogin`, table
 * `identity_login_throttle`) and the fixed-window budgets (`takeBudget`, table `identity_attempts`:
 * per IP for passwords and codes, per address or account for codes, per address for code mails).
 * Password sign-in, TOTP and one-time codes all admit an attempt here before checking the secret.
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

/** Budget scopes kept here besides the code guard's (`CODE_SCOPE` in code-guard.ts). */
export const BUDGET_SCOPE = {
  /** Password attempts per client IP (answered 429). */
  passwordIp: 'ip:password',
  /** Code mails per address (mail bombing guard). */
  codeMail: 'send:address',
} as const;

/** Starts the consecutive-failure count of a sign-in identifier again (a right secret, a recovery). */
export async function resetLogin(db: Db, key: string): Promise<void> {
  await db.deleteFrom('identity_login_throttle').where('identifier', '=', key).execute();
}

/**
 * Whether the lockout that ends at `until` (started by one admission) still stands: no right
 * password, recovery or operator unlock ended it since. Locks the row, so a caller queueing the
 * lockout notice in the same transaction sends it only for a lockout that exists.
 */
export async function lockoutStands(db: Db, key: string, until: Date): Promise<boolean> {
  const row = await db
    .selectFrom('identity_login_throttle')
    .select('locked_until')
    .where('identifier', '=', key)
    .forUpdate()
    .executeTakeFirst();
  return !!row?.locked_until && new Date(row.locked_until).getTime() === until.getTime();
}

export interface AccountAttempt {
  /** Why the attempt may not check its secret: the IP's budget is spent, or the account is locked. */
  refused?: 'ip' | 'account';
  /** Seconds until the IP's window ends, when refused for the IP. */
  retryAfterSec?: number;
  /** Set when this attempt started a lockout, which ends then unless the secret is right. */
  lockStartedUntil?: Date;
  /** A right secret resets the account's count and gives back the IP attempt; a wrong one stays counted. */
  settle(correct: boolean): Promise<void>;
  /**
   * The secret could not be checked (the hashing pool refused with 503): the attempt is given back
   * on both counters, and a lockout it started is lifted, so an overload never counts as a failure.
   */
  giveBack(): Promise<void>;
}

/**
 * Admits one sign-in attempt for the normalised identifier `key` before its secret is checked: first
 * against the IP's budget (when given), then against the account's lockout, each decided in the
 * statement that counts it. An attempt refused by the lockout gives its IP attempt back (no secret
 * was checked). The caller checks the secret only when nothing refused, then settles.
 */
export async function admitAccountAttempt(
  db: Db,
  p: { key: string; now: Date; policy: LockoutPolicy; ip?: { address: string; budget: Budget } },
): Promise<AccountAttempt> {
  const { key, now, ip } = p;
  const refundIp = async () => {
    if (ip) await refundBudget(db, BUDGET_SCOPE.passwordIp, ip.address);
  };
  if (ip) {
    const verdict = await takeBudget(db, BUDGET_SCOPE.passwordIp, ip.address, now, ip.budget);
    if (!verdict.allowed)
      return { refused: 'ip', retryAfterSec: verdict.retryAfterSec, settle: nothing, giveBack: nothing };
  }
  const account = await admitLogin(db, key, now, p.policy);
  if (!account.admitted) {
    await refundIp();
    return { refused: 'account', settle: nothing, giveBack: nothing };
  }
  const lockedUntil = account.lockedUntil;
  return {
    ...(lockedUntil ? { lockStartedUntil: lockedUntil } : {}),
    async settle(correct) {
      if (!correct) return;
      await resetLogin(db, key);
      await refundIp();
    },
    async giveBack() {
      await db
        .updateTable('identity_login_throttle')
        .set({
          failures: sql<number>`greatest(failures - 1, 0)`,
          locked_until: lockedUntil
            ? sql<Date | null>`case when locked_until = ${lockedUntil} then null else locked_until end`
            : sql<Date | null>`locked_until`,
        })
        .where('identifier', '=', key)
        .execute();
      await refundIp();
    },
  };
}

const nothing = async (): Promise<void> => {};
