import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase, createDb, sql, type Database } from '../src/index.ts';

// PostgreSQL only (`*.pg.int.test.ts` runs in the PostgreSQL stage): the pool's size and its named
// statements (PGlite has neither).
describe('PostgreSQL pool and prepared statements', async () => {
  const url = await createDatabase(process.env.TEST_DATABASE_URL!);
  const opened: Database[] = [];
  const open = async (o: { poolMax?: number; preparedPerConnection?: number } = {}) => {
    const db = await createDb({ url, ...o });
    opened.push(db);
    return db;
  };
  afterAll(() => Promise.all(opened.map((db) => db.close())));

  const db = await open();
  await sql`create table p (id int primary key, name text not null)`.execute(db.kysely);
  await sql`insert into p values (1, 'one'), (2, 'two'), (3, 'three')`.execute(db.kysely);

  /** The named statements of the connection `trx` runs on, with how often each ran. */
  const preparedOn = async (trx: Database['kysely']) =>
    (
      await sql<{
        statement: string;
        runs: number;
      }>`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements order by statement`.execute(
        trx,
      )
    ).rows;

  it('sizes the pool from poolMax (DATABASE_POOL_MAX)', async () => {
    expect(db.poolStats?.().max).toBe(10);
    const small = await open({ poolMax: 3 });
    expect(small.poolStats?.().max).toBe(3);
  });

  it('prepares a parameterised query once per connection and reuses it', async () => {
    await db.kysely.transaction().execute(async (trx) => {
      const query = trx.selectFrom('p').select('name').where('id', '=', 2);
      for (let i = 0; i < 3; i++) expect(await query.execute()).toEqual([{ name: 'two' }]);
      expect(await preparedOn(trx)).toContainEqual({ statement: query.compile().sql, runs: 3 });
      // Statements without parameters (transaction control, DDL, constant queries) stay unnamed.
      expect((await preparedOn(trx)).map((r) => r.statement)).not.toContain('begin');
    });
  });

  it('names at most preparedPerConnection statements on a connection, and runs the rest unnamed', async () => {
    const capped = await open({ poolMax: 1, preparedPerConnection: 2 });
    const p = capped.kysely.selectFrom('p').select('id');
    const queries = [
      p.where('id', '=', 1),
      p.where('id', '>', 1),
      p.where('name', '=', 'three'),
      p.where('id', '<', 3),
    ];
    for (let round = 0; round < 2; round++) {
      const results = [];
      for (const q of queries) results.push((await q.execute()).map((r) => r.id));
      expect(results).toEqual([[1], [2, 3], [3], [1, 2]]);
    }
    const statements = await capped.kysely.transaction().execute((trx) => preparedOn(trx));
    expect(statements.map((s) => s.statement).sort()).toEqual(
      queries
        .slice(0, 2)
        .map((q) => q.compile().sql)
        .sort(),
    );
  });

  it('prepares afresh after a column change ("cached plan must not change result type")', async () => {
    const one = await open({ poolMax: 1 });
    await sql`create table q (id int primary key)`.execute(one.kysely);
    await sql`insert into q values (1)`.execute(one.kysely);
    const read = () => one.kysely.selectFrom('q').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(await read()).toEqual({ id: 1 });
    await sql`alter table q add column extra text not null default 'x'`.execute(one.kysely);
    // Outside a transaction: retried at once under a new name.
    expect(await read()).toEqual({ id: 1, extra: 'x' });

    await one.kysely.transaction().execute(async (trx) => {
      expect(await trx.selectFrom('q').selectAll().where('id', '=', 1).execute()).toHaveLength(1);
    });
    await sql`alter table q add column more int not null default 7`.execute(one.kysely);
    // Inside one: the transaction is aborted by the error; the next attempt prepares afresh.
    const inTx = () =>
      one.kysely
        .transaction()
        .execute((trx) => trx.selectFrom('q').selectAll().where('id', '=', 1).executeTakeFirstOrThrow());
    await expect(inTx()).rejects.toMatchObject({ code: '0A000' });
    expect(await inTx()).toEqual({ id: 1, extra: 'x', more: 7 });
  });
});
