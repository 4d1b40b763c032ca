import { sql, type Kysely, type RawBuilder } from 'kysely';
import {
  countAttempt,
  refundBudget as refundCounted,
  takeBudget as takeCounted,
  verdictOf,
  type Budget,
  type BudgetVerdict,
  type CounterTable,
} from '@acme/db/rate-limit';
import type { IdentityDb } from '../db/schema.ts';
import { lockoutDelayMs, type LockoutPolicy } from './backoff.ts';

type Db = Kysely<IdentityDb>;

/**
 * Attempt counters that decide in the same statement that counts. An attempt is counted BEFORE the
 * secret is checked and the verdict comes back from that one `INSERT … ON CONFLICT DO UPDATE …
 * RETURNING`, so parallel requests queue on the row lock and cannot all read "under the limit"
 * before any of them writes. The caller then settles: a correct secret gives its attempt back (or
 * resets the count), a wrong one stays counted. The rows live in PostgreSQL, so every instance of
 * the service shares them.
 *
 * Two counting mechanisms: the per-account lockout (table `identity_login_throttle`, its own rule)
 * and fixed-window budgets, the repository's one rate limiter (`@acme/db/rate-limit`) on table
 * `identity_attempts` (per IP for passwords and codes, per address or account for codes, per
 * address for code mails). Password sign-in, TOTP and one-time codes all admit an attempt here
 * before checking the secret.
 */

export type { Budget, BudgetVerdict };

/** The budgets' table (`@acme/db/rate-limit`'s definition) and one scope of it. */
const budgets = (scope: string): CounterTable => ({ table: 'identity_attempts', scope });

export interface LoginAdmission {
  /** Whether this attempt may check the password. */
  admitted: boolean;
  /** Consecutive failures counted so far, this attempt included when admitted. */
  failures: number;
  lockedUntil: Date | null;
}

/** Budget scopes kept here besides the code guard's (`CODE_SCOPE` in code-guard.ts). */
export const BUDGET_SCOPE = {
  /** Password attempts per client IP (answered 429). */
  passwordIp: 'ip:password',
  /** Code mails per address (mail bombing guard). */
  codeMail: 'send:address',
  /** Self sign-up submissions per client IP (account creation and duplicate probing). */
  registrationIp: 'ip:registration',
} as const;

/**
 * The per-account lockout's counting statement (progressive, always ending): counts one attempt
 * unless a lockout is running; the attempt that reaches the threshold starts a lockout of
 * base × 2^(n − threshold), capped at max. After `resetAfterMs` without failures or lockout the count
 * starts again. Nothing is counted unless `when` holds (another limit already refused).
 */
function loginUpsert(key: string, now: Date, policy: LockoutPolicy, when: RawBuilder<boolean>) {
  const forgetBefore = new Date(now.getTime() - policy.resetAfterMs);
  const firstLock = lockoutDelayMs(1, policy);
  const locked = sql<boolean>`coalesce(t.locked_until > ${now}, false)`;
  // Quiet time counts from the end of the last lockout, or from the last failure.
  const next = sql<number>`case when greatest(t.updated_at, coalesce(t.locked_until, t.updated_at)) <= ${forgetBefore} then 1 else t.failures + 1 end`;
  const delayMs = sql<number>`least(${policy.baseMs}::float8 * power(2::float8, least(${next} - ${policy.threshold}, 40)), ${policy.maxMs}::float8)`;
  return sql`
    insert into identity_login_throttle as t (identifier, failures, locked_until, updated_at, admitted)
    select ${key}::text, 1, ${firstLock > 0 ? new Date(now.getTime() + firstLock) : null}::timestamptz,
      ${now}::timestamptz, true
    where ${when}
    on conflict (identifier) do update set
      admitted = not ${locked},
      failures = case when ${locked} then t.failures else ${next} end,
      locked_until = case
        when ${locked} then t.locked_until
        when ${next} >= ${policy.threshold}
          then ${now}::timestamptz + ${delayMs} * interval '1 millisecond'
        else null end,
      updated_at = case when ${locked} then t.updated_at else ${now} end
    returning admitted, failures, locked_until`;
}

const asDate = (v: Date | string | null): Date | null => (v === null ? null : new Date(v));

/** Counts one attempt on the per-account lockout of `key` and says whether it may check its secret. */
export async function admitLogin(
  db: Db,
  key: string,
  now: Date,
  policy: LockoutPolicy,
): Promise<LoginAdmission> {
  const { rows } = await sql<{
    admitted: boolean;
    failures: number;
    locked_until: Date | null;
  }>`${loginUpsert(key, now, policy, sql<boolean>`true`)}`.execute(db);
  const r = rows[0]!;
  return { admitted: r.admitted, failures: r.failures, lockedUntil: asDate(r.locked_until) };
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
  return takeCounted(db, budgets(scope), key, now, budget);
}

/** Gives back one attempt taken with `takeBudget` (the secret was right, so it was no guess). */
export async function refundBudget(db: Db, scope: string, key: string): Promise<void> {
  await refundCounted(db, budgets(scope), key);
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

export interface AccountAttempt<Extra = object> {
  /** Why the attempt may not check its secret: the IP's budget is spent, or the account is locked. */
  refused?: 'ip' | 'account';
  /** Seconds until the IP's window ends, when refused for the IP. */
  retryAfterSec?: number;
  /** Set when this attempt started a lockout, which ends then unless the secret is right. */
  lockStartedUntil?: Date;
  /** The row the caller's `read` query answered in the same statement (undefined when none). */
  read: Extra | undefined;
  /** A right secret resets the account's count and gives back the IP attempt; a wrong one stays counted. */
  settle(correct: boolean): Promise<void>;
  /**
   * The secret could not be checked (the hashing pool refused with 503): the attempt is given back
   * on both counters, and a lockout it started is lifted, so an overload never counts as a failure.
   */
  giveBack(): Promise<void>;
}

/**
 * Admits one sign-in attempt for the normalised identifier `key` before its secret is checked, in
 * one statement: the IP's budget (when given) counts first, and only an attempt it allows counts on
 * the account's lockout; each verdict comes from the upsert that counts. `read` (a query answering
 * at most one row) runs in the same statement, so a password login reads its credential in the
 * same round trip. An attempt refused by the lockout gives its IP attempt back (no secret was
 * checked). The caller checks the secret only when nothing refused, then settles.
 */
export async function admitAccountAttempt<Extra extends Record<string, unknown> = Record<string, never>>(
  db: Db,
  p: {
    key: string;
    now: Date;
    policy: LockoutPolicy;
    ip?: { address: string; budget: Budget };
    read?: RawBuilder<Extra>;
  },
): Promise<AccountAttempt<Extra>> {
  const { key, now, ip } = p;
  const ipCte = ip
    ? sql`ip as (${countAttempt(budgets(BUDGET_SCOPE.passwordIp), ip.address, now, ip.budget)}),`
    : sql``;
  const ipAllows = ip ? sql<boolean>`(select count from ip) <= ${ip.budget.limit}` : sql<boolean>`true`;
  const ipColumns = ip
    ? sql`(select count from ip) as ip_count, (select window_start from ip) as ip_window_start`
    : sql`null::int as ip_count, null::timestamptz as ip_window_start`;
  const read = p.read ?? sql`select`;
  const { rows } = await sql<
    {
      ip_count: number | null;
      ip_window_start: Date | string | null;
      admitted: boolean | null;
      locked_until: Date | string | null;
    } & Extra
  >`
    with ${ipCte} account as (${loginUpsert(key, now, p.policy, ipAllows)})
    select ${ipColumns}, account.admitted, account.locked_until, extra.*
    from (select 1) as one
    left join account on true
    left join lateral (${read}) as extra on true`.execute(db);
  const r = rows[0]!;
  const { ip_count, ip_window_start, admitted, locked_until, ...rest } = r;
  const extra =
    p.read && Object.values(rest).some((v) => v !== null) ? (rest as unknown as Extra) : undefined;
  const refundIp = async () => {
    if (ip) await refundBudget(db, BUDGET_SCOPE.passwordIp, ip.address);
  };
  if (ip) {
    const verdict = verdictOf(ip_count!, ip_window_start!, now, ip.budget);
    if (!verdict.allowed)
      return {
        refused: 'ip',
        retryAfterSec: verdict.retryAfterSec,
        read: extra,
        settle: nothing,
        giveBack: nothing,
      };
  }
  if (!admitted) {
    await refundIp();
    return { refused: 'account', read: extra, settle: nothing, giveBack: nothing };
  }
  const lockedUntil = asDate(locked_until);
  return {
    ...(lockedUntil ? { lockStartedUntil: lockedUntil } : {}),
    read: extra,
    async settle(correct) {
      if (!correct) return;
      // One statement: the count starts again and the IP gets its attempt back.
      if (ip)
        await sql`with reset as (delete from identity_login_throttle where identifier = ${key})
          update identity_attempts set count = greatest(count - 1, 0)
          where scope = ${BUDGET_SCOPE.passwordIp} and key = ${ip.address}`.execute(db);
      else await resetLogin(db, key);
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
