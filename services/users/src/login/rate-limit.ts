import type { Kysely } from 'kysely';
import { sql } from '@acme/db';
import type { UsersDb } from '../db-types.ts';

interface RateLimitDecision {
  allowed: boolean;
  /** Seconds until the current window ends. */
  retryAfterSeconds: number;
}

export interface RateLimiter {
  hit(key: string, now: Date): Promise<RateLimitDecision>;
}

/**
 * A fixed-window counter kept in PostgreSQL, so every instance on one database shares it.
 * One upsert per hit; the first hit of a window also removes windows older than an hour.
 */
export function createRateLimiter(db: Kysely<UsersDb>, limit: number, windowSeconds: number): RateLimiter {
  const windowMs = windowSeconds * 1000;
  return {
    async hit(key, now) {
      const start = Math.floor(now.getTime() / windowMs) * windowMs;
      const windowStart = new Date(start);
      const row = await db
        .insertInto('rate_limit_counters')
        .values({ key, window_start: windowStart, count: 1 })
        .onConflict((oc) =>
          oc
            .columns(['key', 'window_start'])
            .doUpdateSet({ count: sql<number>`rate_limit_counters.count + 1` }),
        )
        .returning('count')
        .executeTakeFirstOrThrow();
      if (row.count === 1) {
        await db
          .deleteFrom('rate_limit_counters')
          .where('window_start', '<', new Date(start - Math.max(windowMs, 3_600_000)))
          .execute();
      }
      return {
        allowed: row.count <= limit,
        retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now.getTime()) / 1000)),
      };
    },
  };
}
