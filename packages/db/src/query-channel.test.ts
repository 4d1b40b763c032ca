import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { CompiledQuery } from 'kysely';
import { describe, expect, it } from 'vitest';
import { QUERY_CHANNEL, queryLog, type QueryMessage } from './query-channel.ts';

const SECRET = 'S3cr3t-parameter';

describe('the channel of finished statements', () => {
  it('without a subscriber gives Kysely no log (statements are not even timed)', () => {
    expect(queryLog()).toEqual({});
  });

  it("publishes each statement's text, time and outcome, never its parameters", () => {
    const seen: QueryMessage[] = [];
    const listener = (m: unknown) => seen.push(m as QueryMessage);
    subscribe(QUERY_CHANNEL, listener);
    try {
      const { log } = queryLog();
      const query = CompiledQuery.raw('select id from members where email = $1', [SECRET]);
      void log!({ level: 'query', query, queryDurationMillis: 4 });
      void log!({ level: 'error', error: new Error('boom'), query, queryDurationMillis: 1 });
    } finally {
      unsubscribe(QUERY_CHANNEL, listener);
    }
    expect(seen).toEqual([
      { sql: 'select id from members where email = $1', durationMs: 4, failed: false },
      { sql: 'select id from members where email = $1', durationMs: 1, failed: true },
    ]);
    expect(JSON.stringify(seen)).not.toContain(SECRET);
  });
});
