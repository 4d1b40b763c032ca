import { channel } from 'node:diagnostics_channel';
import type { LogEvent } from 'kysely';

// Each statement the PostgreSQL pool ran, published once it is done, for tracing (the service kit
// subscribes when tracing is on and makes each one a span of the request that sent it). Nothing is
// published, and no statement is even timed, in a process without a subscriber at start.

/** The diagnostics channel of finished statements. */
export const QUERY_CHANNEL = 'acme:db.query';

/** One finished statement: its text with `$n` placeholders (never the values) and how long it ran. */
export interface QueryMessage {
  sql: string;
  durationMs: number;
  failed: boolean;
}

const queries = channel(QUERY_CHANNEL);

/**
 * Kysely's `log` option that publishes every statement on the channel, or nothing when no one
 * subscribed (tracing off): the statements then run without Kysely's timing around them.
 */
export function queryLog(): { log?: (event: LogEvent) => void } {
  if (!queries.hasSubscribers) return {};
  return {
    log: (event) =>
      queries.publish({
        sql: event.query.sql,
        durationMs: event.queryDurationMillis,
        failed: event.level === 'error',
      } satisfies QueryMessage),
  };
}
