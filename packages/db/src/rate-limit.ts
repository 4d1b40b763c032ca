import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';

// One fixed-window counter for every service: a row per (scope, key) in the service's own table,
// counted and judged by one `INSERT … ON CONFLICT DO UPDATE … RETURNING`. Parallel requests queue
// on the row lock, so they cannot all read "under the limit" before any of them writes; and the
// rows live in the database, so every instance of a service shares them. Attempts past the limit
// keep being counted, so hammering does not help.

/**
 * The statements that create a service's counters table (the name carries the service's prefix),
 * each applied as its own migration. Services' migrations are never edited once released, so this
 * definition is not either: a change is a new statement here and a new migration in each service.
 */
export function rateLimitTableStatements(table: string): [create: string, index: string] {
  return [
    `create table ${table} (
      scope text not null,
      key text not null,
      window_start timestamptz not null,
      count int not null,
      primary key (scope, key)
    )`,
    `create index ${table}_window_start on ${table} (window_start)`,
  ];
}

/**
 * When a window starts: `aligned` windows start at multiples of the window length (every key's
 * window ends at the same time); `first-attempt` windows start at the first attempt after the last
 * window ended.
 */
export type WindowRule = 'aligned' | 'first-attempt';

export interface Budget {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
  /** Default `first-attempt`. */
  windows?: WindowRule;
}

export interface BudgetVerdict {
  allowed: boolean;
  /** Attempts counted in the current window, this one included. */
  used: number;
  /** Seconds until the window ends (at least 1), when refused; 0 when allowed. */
  retryAfterSec: number;
}

/** Where the table lives and what it counts: `scope` names the limit, the key of each attempt what it counts. */
export interface CounterTable {
  table: string;
  scope: string;
}

function windowStartOf(now: Date, budget: Budget): Date {
  if (budget.windows !== 'aligned') return now;
  return new Date(Math.floor(now.getTime() / budget.windowMs) * budget.windowMs);
}

/**
 * The counting statement: one more attempt in the current window, a new window when the last one
 * has ended. Answers `count` and `window_start`; usable alone or as a CTE of a larger statement.
 */
export function countAttempt(
  at: CounterTable,
  key: string,
  now: Date,
  budget: Budget,
): RawBuilder<{ count: number; window_start: Date | string }> {
  const ended = sql<boolean>`c.window_start <= ${new Date(now.getTime() - budget.windowMs)}`;
  const start = windowStartOf(now, budget);
  return sql`
    insert into ${sql.table(at.table)} as c (scope, key, window_start, count)
    values (${at.scope}, ${key}, ${start}, 1)
    on conflict (scope, key) do update set
      count = case when ${ended} then 1 else c.count + 1 end,
      window_start = case when ${ended} then ${start} else c.window_start end
    returning count, window_start`;
}

/** The verdict on an attempt the counting statement answered `count` and `window_start` for. */
export function verdictOf(
  count: number,
  windowStart: Date | string,
  now: Date,
  budget: Budget,
): BudgetVerdict {
  const allowed = Number(count) <= budget.limit;
  const windowEnd = new Date(windowStart).getTime() + budget.windowMs;
  return {
    allowed,
    used: Number(count),
    retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
  };
}

/** Counts one attempt of `key` and says in the same statement whether it fits the budget. */
export async function takeBudget(
  db: QueryExecutorProvider,
  at: CounterTable,
  key: string,
  now: Date,
  budget: Budget,
): Promise<BudgetVerdict> {
  const { rows } = await countAttempt(at, key, now, budget).execute(db);
  const row = rows[0]!;
  if (Number(row.count) === 1) {
    // A new window: the scope's windows that ended long ago go (kept an hour at least).
    const before = new Date(now.getTime() - Math.max(budget.windowMs, 3_600_000));
    // Rows another request holds are skipped, so two cleanups never wait on each other.
    await sql`
      delete from ${sql.table(at.table)} where (scope, key) in (
        select scope, key from ${sql.table(at.table)}
        where scope = ${at.scope} and window_start < ${before}
        limit 500 for update skip locked)`.execute(db);
  }
  return verdictOf(row.count, row.window_start, now, budget);
}

/** Gives back one attempt of `key` (it turned out to be no guess: the secret was right). */
export async function refundBudget(db: QueryExecutorProvider, at: CounterTable, key: string): Promise<void> {
  await sql`
    update ${sql.table(at.table)} set count = greatest(count - 1, 0)
    where scope = ${at.scope} and key = ${key}`.execute(db);
}

/** One limit bound to its table and budget. */
export interface RateLimiter {
  hit(key: string, now: Date): Promise<BudgetVerdict>;
  refund(key: string): Promise<void>;
}

export function createRateLimiter(db: QueryExecutorProvider, at: CounterTable, budget: Budget): RateLimiter {
  return {
    hit: (key, now) => takeBudget(db, at, key, now, budget),
    refund: (key) => refundBudget(db, at, key),
  };
}
