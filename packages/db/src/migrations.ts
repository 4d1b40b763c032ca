// Schema migrations: each service owns a namespace of ordered, named SQL migrations, recorded in
// `schema_migrations` once applied. They are applied by the service at start (the default), or
// as their own step (the entry points' `migrate` command) before a rollout, by a role that may
// change the schema, while the services themselves run as a role that only reads and writes rows.
import { sql, type Transaction } from 'kysely';
import type { Database } from './index.ts';

export interface Migration {
  /** Unique within the namespace, applied in array order. */
  name: string;
  sql: string;
}

/** One namespace's migrations, in the order they are applied. */
export interface MigrationSet {
  namespace: string;
  migrations: Migration[];
}

/**
 * The advisory lock every migration run takes for its transaction: two runs at once (two
 * instances starting, two migration jobs) apply each migration once; the second waits and then
 * finds nothing left to do.
 */
const MIGRATION_LOCK = 4242;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the database handle is untyped here
async function appliedNames(trx: Transaction<any>, namespace: string): Promise<Set<string>> {
  const done = await sql<{
    name: string;
  }>`select name from schema_migrations where namespace = ${namespace}`.execute(trx);
  return new Set(done.rows.map((r) => r.name));
}

/**
 * Applies the namespaces' pending migrations in one transaction, under an advisory lock so that
 * runs on one server at the same time do not race. Returns what it applied (`namespace/name`).
 */
export async function migrateAll(db: Database, sets: MigrationSet[]): Promise<string[]> {
  return db.kysely.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${sql.lit(MIGRATION_LOCK)})`.execute(trx);
    await sql`create table if not exists schema_migrations (
      namespace text not null, name text not null, applied_at timestamptz not null default now(),
      primary key (namespace, name))`.execute(trx);
    const applied: string[] = [];
    for (const set of sets) {
      const done = await appliedNames(trx, set.namespace);
      for (const m of set.migrations) {
        if (done.has(m.name)) continue;
        await sql.raw(m.sql).execute(trx);
        await sql`insert into schema_migrations (namespace, name) values (${set.namespace}, ${m.name})`.execute(
          trx,
        );
        applied.push(`${set.namespace}/${m.name}`);
      }
    }
    return applied;
  });
}

/** Applies one namespace's pending migrations (see {@link migrateAll}). */
export async function migrate(db: Database, namespace: string, migrations: Migration[]): Promise<void> {
  await migrateAll(db, [{ namespace, migrations }]);
}

export interface MigrationState {
  namespace: string;
  name: string;
  /** When it was applied; null while pending. */
  appliedAt: Date | null;
}

/**
 * Every migration of the namespaces, applied or pending, in order. Reads only (no table is
 * created), so a role without rights to change the schema can ask.
 */
export async function migrationStatus(db: Database, sets: MigrationSet[]): Promise<MigrationState[]> {
  const exists = await sql<{
    t: string | null;
  }>`select to_regclass('schema_migrations')::text as t`.execute(db.kysely);
  const applied = new Map<string, Date>();
  if (exists.rows[0]?.t) {
    const rows = await sql<{ namespace: string; name: string; applied_at: Date }>`
      select namespace, name, applied_at from schema_migrations`.execute(db.kysely);
    for (const r of rows.rows) applied.set(`${r.namespace}/${r.name}`, new Date(r.applied_at));
  }
  return sets.flatMap((set) =>
    set.migrations.map((m) => ({
      namespace: set.namespace,
      name: m.name,
      appliedAt: applied.get(`${set.namespace}/${m.name}`) ?? null,
    })),
  );
}

/** A service was told not to migrate at start and found migrations it needs not yet applied. */
export class PendingMigrationsError extends Error {
  readonly pending: string[];
  constructor(pending: string[]) {
    super(`pending migrations: ${pending.join(', ')}`);
    this.pending = pending;
    this.name = 'PendingMigrationsError';
  }
}

/**
 * What a service does with its schema at start: applies what is pending (`migrateAtStart`), or
 * checks that nothing is and throws {@link PendingMigrationsError} naming what is.
 */
export async function prepareSchema(
  db: Database,
  sets: MigrationSet[],
  migrateAtStart: boolean,
): Promise<void> {
  if (migrateAtStart) {
    await migrateAll(db, sets);
    return;
  }
  const pending = (await migrationStatus(db, sets))
    .filter((m) => m.appliedAt === null)
    .map((m) => `${m.namespace}/${m.name}`);
  if (pending.length > 0) throw new PendingMigrationsError(pending);
}
