import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, sql, type Database } from '../src/index.ts';
import { preparedQueries } from '../src/pglite-prepared.ts';

// Embedded PGlite only (the PostgreSQL pool's named statements: prepared.pg.int.test.ts): the worker
// runs each parameterised statement as a named one, parsed once (pglite-prepared.ts).
describe('PGlite prepared statements', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());
  await sql`create table p (id int primary key, name text not null, at timestamptz, doc jsonb, tags text[])`.execute(
    db.kysely,
  );
  const at = new Date('2026-03-04T05:06:07.089Z');
  await db.kysely
    .insertInto('p')
    .values([
      { id: 1, name: 'one', at, doc: JSON.stringify({ a: [1] }), tags: ['x', 'y'] },
      { id: 2, name: 'two', at: null, doc: null, tags: null },
    ])
    .execute();

  const prepared = async (k: Database['kysely']) =>
    (
      await sql<{
        statement: string;
        runs: number;
      }>`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements`.execute(k)
    ).rows;

  it('prepares a parameterised query once and reuses it, with the values typed as before', async () => {
    const query = db.kysely.selectFrom('p').selectAll().where('id', '=', 1);
    for (let i = 0; i < 3; i++) {
      expect(await query.execute()).toEqual([{ id: 1, name: 'one', at, doc: { a: [1] }, tags: ['x', 'y'] }]);
    }
    expect(await prepared(db.kysely)).toContainEqual({ statement: query.compile().sql, runs: 3 });
    // Without parameters (transaction control, DDL, constant queries): PGlite's own query.
    expect((await prepared(db.kysely)).map((r) => r.statement)).not.toContain('select 1');
    expect(await db.kysely.selectFrom('p').select('id').where('id', '>', 5).execute()).toEqual([]);
  });

  it("keeps PostgreSQL's error fields, and the statement works afterwards", async () => {
    const insert = (id: number) => db.kysely.insertInto('p').values({ id, name: 'dup' }).execute();
    await insert(3);
    await expect(insert(3)).rejects.toMatchObject({ code: '23505', constraint: 'p_pkey', table: 'p' });
    await insert(4);
    expect((await db.kysely.selectFrom('p').select('id').where('name', '=', 'dup').execute()).length).toBe(2);
  });

  it('prepares afresh after a column change ("cached plan must not change result type")', async () => {
    await sql`create table q (id int primary key)`.execute(db.kysely);
    await sql`insert into q values (1)`.execute(db.kysely);
    const read = (k: Database['kysely']) =>
      k.selectFrom('q').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(await read(db.kysely)).toEqual({ id: 1 });
    await sql`alter table q add column extra text not null default 'x'`.execute(db.kysely);
    // Outside a transaction: prepared again and run at once.
    expect(await read(db.kysely)).toEqual({ id: 1, extra: 'x' });
    await sql`alter table q add column more int not null default 7`.execute(db.kysely);
    // Inside one: the error aborts the transaction; the next attempt prepares afresh.
    const inTx = () => db.kysely.transaction().execute((trx) => read(trx));
    await expect(inTx()).rejects.toMatchObject({ code: '0A000' });
    expect(await inTx()).toEqual({ id: 1, extra: 'x', more: 7 });
  });

  // In this process, on preparedQueries itself (through Kysely, the dialect's queue already sends
  // one statement at a time).
  const inProcess = async (test: (pglite: PGlite) => Promise<void>) => {
    const template = process.env.PGLITE_TEMPLATE;
    const pglite = new PGlite(template ? { loadDataDir: new Blob([await readFile(template)]) } : {});
    try {
      await pglite.waitReady;
      await test(pglite);
    } finally {
      await pglite.close();
    }
  };

  it('keeps 50 parallel statements apart: new and prepared ones, and PGlite’s own queries', () =>
    inProcess(async (pglite) => {
      const query = preparedQueries(pglite);
      const results = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const r =
            i % 5 === 0
              ? await query(`select ${i}::int as v`, [])
              : await query(`select $1::int + ${i % 3} as v`, [i]);
          return (r.rows[0] as { v: number }).v;
        }),
      );
      expect(results).toEqual(Array.from({ length: 50 }, (_, i) => (i % 5 === 0 ? i : i + (i % 3))));
    }));

  it('names at most maxStatements texts, and runs the rest through PGlite’s query', () =>
    inProcess(async (pglite) => {
      const query = preparedQueries(pglite, 2);
      const texts = ['select $1::int as v', 'select $1::int + 1 as v', 'select $1::int + 2 as v'];
      for (let round = 0; round < 2; round++) {
        const values = [];
        for (const text of texts) values.push((await query(text, [1])).rows);
        expect(values).toEqual([[{ v: 1 }], [{ v: 2 }], [{ v: 3 }]]);
      }
      const names = await pglite.query<{ statement: string }>('select statement from pg_prepared_statements');
      expect(names.rows.map((r) => r.statement).sort()).toEqual(texts.slice(0, 2).sort());
    }));
});
