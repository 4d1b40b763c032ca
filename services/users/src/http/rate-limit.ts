import { createRateLimiter, type RateLimiter } from '@acme/db/rate-limit';
import type { UsersContext } from '../context.ts';

/** The user service's counters table (`@acme/db/rate-limit`'s definition, migration 431). */
export const RATE_LIMIT_TABLE = 'rate_limits';

/**
 * One of the user service's limits: `limit` requests per key in windows of `windowSeconds` that
 * start at multiples of the window length, shared by every instance on one database.
 */
export function rateLimiter(
  ctx: Pick<UsersContext, 'db'>,
  scope: string,
  limit: number,
  windowSeconds: number,
): RateLimiter {
  return createRateLimiter(
    ctx.db,
    { table: RATE_LIMIT_TABLE, scope },
    { limit, windowMs: windowSeconds * 1000, windows: 'aligned' },
  );
}
