import { channel } from 'node:diagnostics_channel';

// Each statement a PostgreSQL connection ran, published once it is done, for tracing (the service
// kit subscribes when tracing is on and makes each one a span of the request that sent it). Nothing
// is published, and no statement is even timed, in a process without a subscriber at start.

/** The diagnostics channel of finished statements. */
export const QUERY_CHANNEL = 'acme:db.query';

/** One finished statement: its text with `$n` placeholders (never the values) and how long it ran. */
export interface QueryMessage {
  sql: string;
  durationMs: number;
  failed: boolean;
}

const queries = channel(QUERY_CHANNEL);

type Query = (...args: unknown[]) => unknown;

/** Publishes a statement that began at `started` (performance.now()) as finished now. */
function finished(sql: string, started: number, failed: boolean): void {
  queries.publish({ sql, durationMs: performance.now() - started, failed } satisfies QueryMessage);
}

const isPromise = (value: unknown): value is Promise<unknown> =>
  typeof (value as Promise<unknown> | null)?.then === 'function';

/**
 * Makes a connection publish each statement it finishes: its `query(text, values)` (the form Kysely
 * calls) timed around the promise it answers, in the caller's async context. The other forms (a
 * config object, a cursor, a callback) pass through unpublished. Kysely's own `log` option did the
 * same through three async functions and two closures per statement, which a heap profile of a traced
 * refresh grant counted as the largest of tracing's allocations.
 */
export function publishStatementsOf(client: { query: Query }): void {
  const query = client.query.bind(client) as Query;
  client.query = (...args: unknown[]) => {
    const [text] = args;
    if (args.length !== 2 || typeof text !== 'string') return query(...args);
    const started = performance.now();
    const result = query(...args);
    if (!isPromise(result)) return result;
    return result.then(
      (value) => {
        finished(text, started, false);
        return value;
      },
      (error: unknown) => {
        finished(text, started, true);
        throw error;
      },
    );
  };
}

/** Every connection of `pool` publishes its statements, when someone subscribed before (tracing on). */
export function publishStatements(pool: {
  on(event: 'connect', listener: (client: { query: Query }) => void): unknown;
}): void {
  if (queries.hasSubscribers) pool.on('connect', publishStatementsOf);
}
