import { sql } from 'kysely';
import type { Db } from '../db/db.ts';
import { lockoutDelayMs, type LockoutPolicy } from './backoff.ts';

/** True while the per-account wait is running: the attempt is refused without checking the password. */
export async function isAccountLocked(db: Db, key: string, now: Date): Promise<boolean> {
  const row = await db
    .selectFrom('identity_login_throttle')
    .select('locked_until')
    .where('identifier', '=', key)
    .executeTakeFirst();
  return lockRunning(row?.locked_until, now);
}

/** Whether a per-account wait that ends at `lockedUntil` is still running at `now`. */
export function lockRunning(lockedUntil: Date | null | undefined, now: Date): boolean {
  return !!lockedUntil && lockedUntil > now;
}

/** Counts one more consecutive failure and sets the wait that follows it (atomic upsert). */
export async function recordAccountFailure(
  db: Db,
  key: string,
  now: Date,
  policy: LockoutPolicy,
): Promise<number> {
  const row = await db
    .insertInto('identity_login_throttle')
    .values({ identifier: key, failures: 1, locked_until: null, updated_at: now })
    .onConflict((oc) =>
      oc.column('identifier').doUpdateSet({
        failures: sql<number>`identity_login_throttle.failures + 1`,
        updated_at: now,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  const delay = lockoutDelayMs(row.failures, policy);
  if (delay > 0) {
    const until = new Date(now.getTime() + delay);
    await db
      .updateTable('identity_login_throttle')
      .set({ locked_until: until })
      .where('identifier', '=', key)
      .execute();
  }
  return row.failures;
}

export async function resetAccount(db: Db, key: string): Promise<void> {
  await db.deleteFrom('identity_login_throttle').where('identifier', '=', key).execute();
}

export interface IpLimit {
  failures: number;
  windowMs: number;
}

/**
 * Seconds until this IP may fail again, or 0 when it is under the limit in the current window, from
 * its counter row as the caller read it (undefined: no failures counted).
 */
export function ipRetryAfter(
  row: { window_start: Date; failures: number } | undefined,
  now: Date,
  limit: IpLimit,
): number {
  if (!row) return 0;
  const windowEnd = row.window_start.getTime() + limit.windowMs;
  if (windowEnd <= now.getTime() || row.failures < limit.failures) return 0;
  return Math.ceil((windowEnd - now.getTime()) / 1000);
}

/** Fixed-window failure counter per IP. */
export async function recordIpFailure(db: Db, ip: string, now: Date, windowMs: number): Promise<void> {
  const windowOpen = new Date(now.getTime() - windowMs);
  await db
    .insertInto('identity_ip_throttle')
    .values({ ip, window_start: now, failures: 1 })
    .onConflict((oc) =>
      oc.column('ip').doUpdateSet({
        failures: sql<number>`case when identity_ip_throttle.window_start <= ${windowOpen} then 1 else identity_ip_throttle.failures + 1 end`,
        window_start: sql<Date>`case when identity_ip_throttle.window_start <= ${windowOpen} then ${now} else identity_ip_throttle.window_start end`,
      }),
    )
    .execute();
}

/**
 * Mail bombing guard: counts code mails per address in a fixed window and says whether one more
 * may go out. Callers answer the same either way (no enumeration), they just do not send.
 */
export async function allowSend(
  db: Db,
  address: string,
  now: Date,
  limit: number,
  windowMs: number,
): Promise<boolean> {
  const windowOpen = new Date(now.getTime() - windowMs);
  const row = await db
    .insertInto('identity_send_throttle')
    .values({ address, window_start: now, sends: 1 })
    .onConflict((oc) =>
      oc.column('address').doUpdateSet({
        sends: sql<number>`case when identity_send_throttle.window_start <= ${windowOpen} then 1 else identity_send_throttle.sends + 1 end`,
        window_start: sql<Date>`case when identity_send_throttle.window_start <= ${windowOpen} then ${now} else identity_send_throttle.window_start end`,
      }),
    )
    .returning('sends')
    .executeTakeFirstOrThrow();
  return row.sends <= limit;
}
