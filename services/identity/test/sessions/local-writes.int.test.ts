import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { Kysely } from 'kysely';
import { createTestDb, sql, type Database } from '@acme/db';
import { FakeClock } from '@acme/db/clock';
import type { SessionRow } from '../../src/db/schema.ts';
import type { LoadedIdentity } from '../../src/identities/repo.ts';
import { SessionCache } from '../../src/sessions/cache.ts';
import {
  LocalWritesPlugin,
  registerLocalWrites,
  writesWatchedTable,
} from '../../src/sessions/local-writes.ts';

/**
 * Without any change notice (these tables have no triggers), a request that wrote to a table behind
 * whoami must still leave this instance's cache empty by the time its response is sent.
 */
describe('local writes empty the cache before the response', () => {
  let database: Database;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- ad-hoc tables of this test
  let db: Kysely<any>;
  let app: FastifyInstance;
  const clock = new FakeClock(new Date('2026-03-01T10:00:00.000Z'));
  const cache = new SessionCache({ ttlMs: 30_000, maxEntries: 10, clock });
  const warm = () =>
    cache.set(
      'h1',
      {
        row: { identity_id: 'i1', expires_at: new Date(clock.now().getTime() + 3_600_000) } as SessionRow,
        identity: {} as LoadedIdentity,
      },
      cache.ticket(),
    );

  beforeAll(async () => {
    database = await createTestDb();
    db = database.kysely.withPlugin(new LocalWritesPlugin());
    await sql`create table identity_sessions (id int primary key, active boolean)`.execute(db);
    await sql`create table identity_flows (id int primary key, state text)`.execute(db);
    await db.insertInto('identity_sessions').values({ id: 1, active: true }).execute();
    await db.insertInto('identity_flows').values({ id: 1, state: 'a' }).execute();
    cache.listening(true);
    app = Fastify();
    registerLocalWrites(app, cache);
    app.post('/revoke', async () => {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('identity_sessions').set({ active: false }).where('id', '=', 1).execute();
      });
      return { ok: true };
    });
    app.post('/raw-revoke', async () => {
      await sql`update identity_sessions set active = false where id = ${1}`.execute(db);
      return { ok: true };
    });
    app.post('/flow', async () => {
      await db.updateTable('identity_flows').set({ state: 'b' }).where('id', '=', 1).execute();
      await db.selectFrom('identity_sessions').selectAll().execute();
      return { ok: true };
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await database.close();
  });

  it('a request that updates sessions (in a transaction) empties the cache', async () => {
    warm();
    expect(cache.size).toBe(1);
    expect((await app.inject({ method: 'POST', url: '/revoke' })).statusCode).toBe(200);
    expect(cache.size).toBe(0);
  });

  it('so does one that writes with plain SQL', async () => {
    warm();
    expect((await app.inject({ method: 'POST', url: '/raw-revoke' })).statusCode).toBe(200);
    expect(cache.size).toBe(0);
  });

  it('so does one with a JSON body over real HTTP (the handler runs after the body stream)', async () => {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    warm();
    const res = await fetch(`http://127.0.0.1:${port}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_token: 'x'.repeat(20_000) }),
    });
    expect(res.status).toBe(200);
    expect(cache.size).toBe(0);
  });

  it('a request that only reads them or writes other tables leaves it', async () => {
    warm();
    expect((await app.inject({ method: 'POST', url: '/flow' })).statusCode).toBe(200);
    expect(cache.size).toBe(1);
  });

  it('recognises writes to the tables behind whoami, and only those', () => {
    const node = (q: { toOperationNode(): never }) => q.toOperationNode();
    expect(writesWatchedTable(node(db.deleteFrom('identity_identities').where('id', '=', 1) as never))).toBe(
      true,
    );
    expect(writesWatchedTable(node(db.insertInto('identity_credentials').values({ id: 1 }) as never))).toBe(
      true,
    );
    expect(writesWatchedTable(node(db.insertInto('identity_flows').values({ id: 1 }) as never))).toBe(false);
    expect(writesWatchedTable(node(db.selectFrom('identity_sessions').selectAll() as never))).toBe(false);
    expect(
      writesWatchedTable(node(sql`delete from identity_verifiable_addresses where id = ${1}` as never)),
    ).toBe(true);
    expect(writesWatchedTable(node(sql`select * from identity_sessions` as never))).toBe(false);
    // An insert written as a data-modifying CTE inside plain SQL (how a login creates its session).
    const insert = db.insertInto('identity_sessions').values({ id: 1 });
    expect(writesWatchedTable(node(sql`with created as (${insert}) select 1` as never))).toBe(true);
    const other = db.insertInto('identity_flows').values({ id: 1 });
    expect(writesWatchedTable(node(sql`with created as (${other}) select 1` as never))).toBe(false);
  });
});
