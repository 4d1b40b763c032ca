import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, sql } from '../src/index.ts';

// What services rely on from either driver (embedded PGlite runs in a worker thread, so every value
// and error crosses a thread boundary there): values keep their types, errors keep PostgreSQL's
// fields, and a slow query leaves the event loop free.
describe('driver', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());
  await sql`create table v (
    id int primary key, at timestamptz, b bytea, doc jsonb, n bigint, num numeric, ints int[],
    tags text[], note text not null default '')`.execute(db.kysely);

  it('round-trips dates, bytes, json, null, numbers and arrays', async () => {
    const at = new Date('2026-03-04T05:06:07.089Z');
    const bytes = Buffer.from([0, 1, 254, 255]);
    await sql`insert into v (id, at, b, doc, n, num, ints, tags)
      values (1, ${at}, ${bytes}, ${{ a: [1, 'two'], z: null }}, ${9_007_199_254_740_991}, 1.5,
        ${[1, 2, 3]}, ${['x', 'y "quoted"']})`.execute(db.kysely);
    await sql`insert into v (id) values (2)`.execute(db.kysely);
    const rows = await db.kysely.selectFrom('v').selectAll().orderBy('id').execute();
    const [one, two] = rows as [Record<string, any>, Record<string, any>]; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(one.at).toBeInstanceOf(Date);
    expect(one.at).toEqual(at);
    expect(one.b).toBeInstanceOf(Uint8Array);
    expect([...one.b]).toEqual([0, 1, 254, 255]);
    expect(one.doc).toEqual({ a: [1, 'two'], z: null });
    expect(one.n).toBe(9_007_199_254_740_991);
    // numeric: node-postgres is told to parse it (see index.ts); PGlite hands over its text.
    expect(one.num).toBe(db.kind === 'postgres' ? 1.5 : '1.5');
    expect(one.ints).toEqual([1, 2, 3]);
    expect(one.tags).toEqual(['x', 'y "quoted"']);
    expect(two).toMatchObject({ at: null, b: null, doc: null, n: null, ints: null, note: '' });
    const count = await sql<{ c: number }>`select count(*) as c from v`.execute(db.kysely);
    expect(count.rows[0]?.c).toBe(2);
  });

  it('embedded PGlite keeps its shared buffers small (its memory never shrinks)', async () => {
    const r = await sql<{ shared_buffers: string }>`show shared_buffers`.execute(db.kysely);
    // A PostgreSQL server keeps its own setting; the embedded database is given 16 MB.
    if (db.kind === 'pglite') expect(r.rows[0]?.shared_buffers).toBe('16MB');
    else expect(r.rows[0]?.shared_buffers).toMatch(/^\d+[kMG]B$/);
  });

  it('reports affected rows', async () => {
    const r = await db.kysely.updateTable('v').set({ note: 'seen' }).where('id', '<=', 2).executeTakeFirst();
    expect(r.numUpdatedRows).toBe(2n);
  });

  it("keeps PostgreSQL's error fields", async () => {
    const dup = await sql`insert into v (id) values (1)`.execute(db.kysely).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(Error);
    expect(dup).toMatchObject({
      message: 'duplicate key value violates unique constraint "v_pkey"',
      code: '23505',
      severity: 'ERROR',
      constraint: 'v_pkey',
      table: 'v',
      schema: 'public',
      detail: 'Key (id)=(1) already exists.',
    });
    const notNull = await sql`insert into v (id, note) values (3, null)`
      .execute(db.kysely)
      .catch((e: unknown) => e);
    expect(notNull).toMatchObject({ code: '23502', column: 'note', table: 'v' });
    const syntax = await sql`selec 1`.execute(db.kysely).catch((e: unknown) => e);
    expect(syntax).toMatchObject({ code: '42601', message: 'syntax error at or near "selec"' });
    // The connection keeps serving after errors.
    const ok = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
    expect(ok.rows).toEqual([{ one: 1 }]);
  });

  it('leaves the event loop free during a slow query (eventLoopBlocked)', async () => {
    const t0 = performance.now();
    let timerAt: number | undefined;
    const timer = new Promise<void>((resolve) =>
      setTimeout(() => {
        timerAt = performance.now() - t0;
        resolve();
      }, 20),
    );
    await sql`select pg_sleep(0.4)`.execute(db.kysely);
    const queryMs = performance.now() - t0;
    await timer;
    expect(queryMs).toBeGreaterThanOrEqual(390);
    // On PGlite in-process the timer could only fire after the query (at 400 ms or later).
    expect(timerAt).toBeLessThan(200);
  });
});
