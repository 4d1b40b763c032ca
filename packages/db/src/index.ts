import { mkdir } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { PGliteDialect } from './pglite-dialect.ts';

export { sql };

// int8 and numeric come back as numbers on both drivers (counts, epoch ms).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface Database {
  /** Untyped handle; services narrow it with `typed<T>()`. */
  kysely: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
  /** Connection-pool use (PostgreSQL only; PGlite is one in-process connection). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

export function typed<T>(db: Database): Kysely<T> {
  return db.kysely as Kysely<T>;
}

export interface DbOptions {
  /** postgres://… selects a PostgreSQL server; absent selects embedded PGlite. */
  url?: string | undefined;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string | undefined;
}

export async function createDb(options: DbOptions = {}): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: 10 });
    const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    return {
      kysely,
      kind: 'postgres',
      close: () => kysely.destroy(),
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max,
      }),
    };
  }
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const pglite = options.dataDir ? new PGlite(options.dataDir) : new PGlite();
  await pglite.waitReady;
  const kysely = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  return { kysely, kind: 'pglite', close: () => kysely.destroy() };
}

export interface Migration {
  /** Unique within the namespace, applied in array order. */
  name: string;
  sql: string;
}

/**
 * Applies the namespace's pending migrations in one transaction, under an advisory
 * lock so that instances starting together on one server do not race.
 */
export async function migrate(db: Database, namespace: string, migrations: Migration[]): Promise<void> {
  await db.kysely.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(4242)`.execute(trx);
    await sql`create table if not exists schema_migrations (
      namespace text not null, name text not null, applied_at timestamptz not null default now(),
      primary key (namespace, name))`.execute(trx);
    const done = await sql<{
      name: string;
    }>`select name from schema_migrations where namespace = ${namespace}`.execute(trx);
    const applied = new Set(done.rows.map((r) => r.name));
    for (const m of migrations) {
      if (applied.has(m.name)) continue;
      await sql.raw(m.sql).execute(trx);
      await sql`insert into schema_migrations (namespace, name) values (${namespace}, ${m.name})`.execute(
        trx,
      );
    }
  });
}

/**
 * A fresh, empty database for one test file: in-memory PGlite, or, when the test run
 * started a PostgreSQL cluster (TEST_DATABASE_URL), a new database on it.
 */
export async function createTestDb(): Promise<Database> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) return createDb();
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return createDb({ url: url.toString() });
}
