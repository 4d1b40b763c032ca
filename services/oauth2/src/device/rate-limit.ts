import { sql, type Database } from '@acme/db';

/**
 * A fixed-window counter in PostgreSQL, shared by every instance on one database. `hit` counts
 * first and decides after (one atomic upsert), so parallel requests cannot all slip under the
 * limit; `refund` gives a hit back (a correct user code is no guess).
 */
export interface RateLimiter {
  hit(key: string, now: Date): Promise<{ allowed: boolean; retryAfterSeconds: number }>;
  refund(key: string, now: Date): Promise<void>;
}

export function createRateLimiter(db: Database, limit: number, windowSeconds: number): RateLimiter {
  const windowMs = windowSeconds * 1000;
  const windowOf = (now: Date) => Math.floor(now.getTime() / windowMs) * windowMs;
  return {
    async hit(key, now) {
      const start = windowOf(now);
      const startIso = new Date(start).toISOString();
      const rows = (
        await sql<{ count: number }>`
          insert into oauth2_rate_limits (key, window_start, count)
          values (${key}, ${startIso}::timestamptz, 1)
          on conflict (key, window_start) do update set count = oauth2_rate_limits.count + 1
          returning count`.execute(db.kysely)
      ).rows;
      const count = Number(rows[0]?.count ?? 1);
      if (count === 1) {
        const old = new Date(start - Math.max(windowMs, 3_600_000)).toISOString();
        await sql`delete from oauth2_rate_limits where window_start < ${old}::timestamptz`.execute(db.kysely);
      }
      return {
        allowed: count <= limit,
        retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)),
      };
    },
    async refund(key, now) {
      const startIso = new Date(windowOf(now)).toISOString();
      await sql`
        update oauth2_rate_limits set count = greatest(count - 1, 0)
        where key = ${key} and window_start = ${startIso}::timestamptz`.execute(db.kysely);
    },
  };
}
