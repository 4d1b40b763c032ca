import { createHash } from 'node:crypto';
import type pg from 'pg';

/**
 * Named (prepared) statements for the PostgreSQL pool. node-postgres parses and plans an unnamed
 * parameterised query on every execution; given a name, it sends the Parse once per connection and
 * then only Bind/Execute. Every parameterised select/insert/update/delete/with that Kysely sends
 * gets a name derived from its text, so the hot queries (session look-ups, token exchange, login)
 * are prepared once per pooled connection and reused.
 *
 * - At most `maxPerConnection` names per connection (texts beyond it run unnamed): statements whose
 *   text varies with the data (`in (…)` lists of varying length) cannot pile up on the server.
 * - A prepared `select *` / `returning *` fails with "cached plan must not change result type" once
 *   its table's columns change (a migration by a newer instance). The statement then gets a fresh
 *   name on that connection, and outside a transaction it is run again at once; inside one the
 *   error stands (the transaction is aborted) and the next attempt prepares afresh.
 */
export function prepareStatementsOn(pool: pg.Pool, maxPerConnection: number): void {
  pool.on('connect', (client) => prepareStatementsFor(client, maxPerConnection));
}

const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
const TX_START = /^\s*(begin|start\s+transaction)\b/i;
const TX_END = /^\s*(commit|end|rollback|abort)\b(?!\s+to\b)/i;
const CACHED_PLAN_CHANGED = '0A000';

// Statement text → name, shared by all connections (bounded: cleared when full).
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= 5000) names.clear();
    name = `k_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

type Query = (...args: unknown[]) => unknown;

function prepareStatementsFor(client: pg.PoolClient, maxPerConnection: number): void {
  const plain = client.query.bind(client) as Query;
  // Names in use on this connection: text → name (a later generation after a result-type change).
  const prepared = new Map<string, string>();
  let generation = 0;
  let inTransaction = false;

  const named = (text: string): string | undefined => {
    const existing = prepared.get(text);
    if (existing !== undefined) return existing;
    if (prepared.size >= maxPerConnection) return undefined;
    const name = nameOf(text);
    prepared.set(text, name);
    return name;
  };

  const run = async (text: string, values: unknown[]): Promise<unknown> => {
    const name = named(text);
    if (name === undefined) return plain(text, values);
    try {
      return await plain({ name, text, values });
    } catch (err) {
      if ((err as { code?: unknown }).code !== CACHED_PLAN_CHANGED) throw err;
      // The old statement stays prepared under its name but is never used again on this connection.
      prepared.set(text, `${nameOf(text)}_${++generation}`);
      if (inTransaction) throw err;
      return plain({ name: prepared.get(text), text, values });
    }
  };

  client.query = ((...args: unknown[]) => {
    const [text, values] = args;
    if (typeof text !== 'string' || args.length !== 2 || !Array.isArray(values)) return plain(...args);
    if (values.length === 0 || !PREPARABLE.test(text)) {
      if (TX_START.test(text)) inTransaction = true;
      else if (TX_END.test(text)) inTransaction = false;
      return plain(text, values);
    }
    return run(text, values);
  }) as typeof client.query;
}
