// Named (prepared) statements on PGlite, run inside its worker thread (pglite-worker.ts).
//
// PGlite's `query` sends Parse, Describe, Bind, Describe, Execute and Sync for every call: each
// query is parsed, analysed and planned again, which for the session look-up of every whoami (a join
// with JSON aggregates) is most of its cost. Here a parameterised select/insert/update/delete/with is
// parsed once under a name, with its parameter types and row description kept, and then each call
// sends only Bind, Execute and Sync, in one message. The rules are pg-prepared.ts's for PostgreSQL:
// - at most `maxStatements` names (texts beyond run through `query`), so texts that vary with the
//   data (`in (…)` lists) cannot pile up;
// - a prepared `select *` fails with "cached plan must not change result type" (0A000) once its
//   table's columns change (a migration): the text is prepared again under a new name, and outside a
//   transaction run again at once; inside one the error stands (the transaction is aborted).
//
// This file runs in the worker, where Node strips its types: erasable syntax only.
import { parse, protocol, type PGlite, type Results } from '@electric-sql/pglite';

const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
const TX_START = /^\s*(begin|start\s+transaction)\b/i;
const TX_END = /^\s*(commit|end|rollback|abort)\b(?!\s+to\b)/i;
const CACHED_PLAN_CHANGED = '0A000';

interface Statement {
  name: string;
  paramTypes: number[];
  /** The RowDescription of Describe (none for a statement that returns no rows). */
  rowDescription: unknown;
}

type Messages = Parameters<typeof parse.parseResults>[0];

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

export type Query = (text: string, params: unknown[]) => Promise<Results<unknown>>;

export function preparedQueries(pglite: PGlite, maxStatements = 200): Query {
  const statements = new Map<string, Statement>();
  let generation = 0;
  let inTransaction = false;

  const prepare = async (text: string): Promise<Statement> => {
    const name = `p_${++generation}`;
    const { messages } = await pglite.execProtocol(
      concat([
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: 'S', name }),
        protocol.serialize.sync(),
      ]),
    );
    const statement = {
      name,
      paramTypes: parse.parseDescribeStatementResults(messages),
      rowDescription: messages.find((m) => m.name === 'rowDescription'),
    };
    statements.set(text, statement);
    return statement;
  };

  const execute = async (statement: Statement, params: unknown[]): Promise<Results<unknown>> => {
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null;
      const serialize = pglite.serializers[statement.paramTypes[i] ?? 0];
      return serialize ? serialize(param) : String(param);
    });
    const { messages } = await pglite.execProtocol(
      concat([
        protocol.serialize.bind({ statement: statement.name, values }),
        protocol.serialize.execute({}),
        protocol.serialize.sync(),
      ]),
    );
    const all = (statement.rowDescription ? [statement.rowDescription, ...messages] : messages) as Messages;
    return parse.parseResults(all, pglite.parsers)[0] ?? { rows: [], fields: [] };
  };

  return (text, params) => {
    if (params.length === 0 || !PREPARABLE.test(text)) {
      if (TX_START.test(text)) inTransaction = true;
      else if (TX_END.test(text)) inTransaction = false;
      return pglite.query(text, params);
    }
    if (!statements.has(text) && statements.size >= maxStatements) return pglite.query(text, params);
    // One at a time with PGlite's own queries: a statement's messages must not interleave with theirs.
    return pglite._runExclusiveQuery(async () => {
      const statement = statements.get(text) ?? (await prepare(text));
      try {
        return await execute(statement, params);
      } catch (err) {
        if ((err as { code?: unknown }).code !== CACHED_PLAN_CHANGED) throw err;
        statements.delete(text); // its old name stays prepared, never used again
        if (inTransaction) throw err;
        return execute(await prepare(text), params);
      }
    });
  };
}
