import { afterAll, describe, expect, it } from 'vitest';
import { createTestDb, sql } from '../src/index.ts';

// PostgreSQL only (`*.pg.int.test.ts` runs in the PostgreSQL stage): an embedded PGlite has no
// connection that can be lost.
describe('listen on PostgreSQL', async () => {
  const db = await createTestDb();
  afterAll(() => db.close());

  const until = async (cond: () => boolean, ms = 2000) => {
    const t0 = performance.now();
    while (!cond() && performance.now() - t0 < ms) await new Promise((r) => setTimeout(r, 10));
    return cond();
  };

  it('runs on PostgreSQL', () => {
    expect(db.kind).toBe('postgres');
  });

  it('reports a lost connection and listens again', async () => {
    const got: string[] = [];
    const events: string[] = [];
    const listener = await db.listen('test_channel', {
      notice: (p) => got.push(p),
      ready: () => events.push('ready'),
      lost: () => events.push('lost'),
    });
    try {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = 'listen:test_channel'`.execute(db.kysely);
      expect(await until(() => events.length >= 3)).toBe(true);
      expect(events).toEqual(['ready', 'lost', 'ready']);
      await sql`select pg_notify('test_channel', 'again')`.execute(db.kysely);
      expect(await until(() => got.length > 0)).toBe(true);
      expect(got).toEqual(['again']);
    } finally {
      await listener.close();
    }
  });
});
