import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, migrate, sql } from '../src/index.ts';

describe('database', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());

  it('reports its driver', () => {
    expect(db.kind).toBe(process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite');
  });

  it('applies migrations once, in order', async () => {
    const migrations = [
      { name: '001', sql: 'create table t (id int primary key, doc jsonb, at timestamptz)' },
      { name: '002', sql: 'alter table t add column n bigint' },
    ];
    await migrate(db, 'test', migrations);
    await migrate(db, 'test', migrations);
    const rows = await sql<{
      name: string;
    }>`select name from schema_migrations where namespace = 'test' order by name`.execute(db.kysely);
    expect(rows.rows.map((r) => r.name)).toEqual(['001', '002']);
  });

  it('round-trips jsonb, timestamptz and bigint the same on every driver', async () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    await db.kysely
      .insertInto('t')
      .values({ id: 1, doc: JSON.stringify({ a: [1, 2] }), at, n: 5 })
      .execute();
    const row = await db.kysely.selectFrom('t').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
    expect(row.doc).toEqual({ a: [1, 2] });
    expect(row.at).toEqual(at);
    expect(row.n).toBe(5);
  });

  it('rolls back a failed transaction and keeps serving queries', async () => {
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ id: 2 }).execute();
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const count = await sql<{ c: number }>`select count(*)::int as c from t`.execute(db.kysely);
    expect(count.rows[0]?.c).toBe(1);
  });

  it('serialises concurrent transactions', async () => {
    await Promise.all(
      [10, 11, 12, 13].map((id) =>
        db.kysely.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ id }).execute();
        }),
      ),
    );
    const count = await sql<{ c: number }>`select count(*)::int as c from t`.execute(db.kysely);
    expect(count.rows[0]?.c).toBe(5);
  });
});

describe('listen', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());

  const until = async (cond: () => boolean, ms = 2000) => {
    const t0 = performance.now();
    while (!cond() && performance.now() - t0 < ms) await new Promise((r) => setTimeout(r, 10));
    return cond();
  };

  it('delivers a notice on commit, never for a rollback, and stops after close', async () => {
    const got: string[] = [];
    let ready = 0;
    const listener = await db.listen('test_channel', {
      notice: (p) => got.push(p),
      ready: () => ready++,
      lost: () => undefined,
    });
    expect(ready).toBe(1);
    await expect(
      db.kysely.transaction().execute(async (trx) => {
        await sql`select pg_notify('test_channel', 'rolled back')`.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_notify('test_channel', 'one')`.execute(trx);
      await sql`select pg_notify('other_channel', 'elsewhere')`.execute(trx);
      expect(got).toEqual([]); // not before the commit
    });
    expect(await until(() => got.length > 0)).toBe(true);
    expect(got).toEqual(['one']);
    await listener.close();
    await sql`select pg_notify('test_channel', 'after close')`.execute(db.kysely);
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toEqual(['one']);
  });
});
