import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { publishStatements, publishStatementsOf, QUERY_CHANNEL, type QueryMessage } from './query-channel.ts';

const SECRET = 'S3cr3t-parameter';

/** A connection's query as pg's has it: `(text, values)` answers a promise; a callback form answers nothing. */
function connection() {
  const calls: unknown[][] = [];
  const client = {
    query: (...args: unknown[]): unknown => {
      calls.push(args);
      if (typeof args.at(-1) === 'function') return undefined;
      return args[0] === 'select broken' ? Promise.reject(new Error('boom')) : Promise.resolve({ rows: [] });
    },
  };
  return { client, calls };
}

/** Runs `fn` with a subscriber on the channel; answers what it saw, each with the async context it saw it in. */
async function observed(fn: () => Promise<void>) {
  const request = new AsyncLocalStorage<string>();
  const seen: (QueryMessage & { request?: string })[] = [];
  const listener = (m: unknown) => seen.push({ ...(m as QueryMessage), request: request.getStore() });
  subscribe(QUERY_CHANNEL, listener);
  try {
    await request.run('request-1', fn);
  } finally {
    unsubscribe(QUERY_CHANNEL, listener);
  }
  return seen;
}

describe('the channel of finished statements', () => {
  it('without a subscriber leaves the pool alone (statements are not even timed)', () => {
    const listened: string[] = [];
    publishStatements({ on: (event: string) => listened.push(event) });
    expect(listened).toEqual([]);
  });

  it('with one, wraps each connection the pool opens', async () => {
    const listened: string[] = [];
    await observed(async () => {
      publishStatements({ on: (event: string) => listened.push(event) });
    });
    expect(listened).toEqual(['connect']);
  });

  it("publishes each statement's text, time and outcome in the caller's context, never its parameters, and answers as the connection did", async () => {
    const { client, calls } = connection();
    publishStatementsOf(client);
    let answer: unknown;
    const seen = await observed(async () => {
      answer = await client.query('select id from members where email = $1', [SECRET]);
      await expect(client.query('select broken', [])).rejects.toThrow('boom');
    });
    expect(answer).toEqual({ rows: [] });
    expect(seen).toEqual([
      {
        sql: 'select id from members where email = $1',
        durationMs: expect.any(Number),
        failed: false,
        request: 'request-1',
      },
      { sql: 'select broken', durationMs: expect.any(Number), failed: true, request: 'request-1' },
    ]);
    expect(seen.every((m) => m.durationMs >= 0)).toBe(true);
    expect(JSON.stringify(seen)).not.toContain(SECRET);
    expect(calls[0]).toEqual(['select id from members where email = $1', [SECRET]]);
  });

  it('passes the other forms through unpublished: a config object, a callback, text alone', async () => {
    const { client, calls } = connection();
    publishStatementsOf(client);
    const seen = await observed(async () => {
      await client.query({ text: 'select 1', values: [] });
      expect(client.query('select 2', [], () => undefined)).toBeUndefined();
      await client.query('select 3');
    });
    expect(seen).toEqual([]);
    expect(calls).toHaveLength(3);
  });
});
