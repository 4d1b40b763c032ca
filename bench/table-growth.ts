// `BENCH_ONLY=growth npm run bench`: what each table gains per sign-in and per token refresh, and
// what a row of it costs on disk (issue 38, docs/operations.md "Growth and retention"). The
// identity service, the authorization server and the user service as processes on a throwaway
// PostgreSQL server, seeded with the demo organisations; then BENCH_GROWTH_SIGN_INS full sign-ins (four at a time)
// of the platform app (password, code exchange) and BENCH_GROWTH_REFRESH_SEC seconds of refresh
// chains. Each table's rows and `pg_total_relation_size` (heap, TOAST and indexes) are read before
// and after each phase; bytes per row are the table's growth over its rows' growth.
import { DEMO_USERS } from '@acme/users';
import { createDb, sql } from '@acme/db';
import { startCluster } from '@acme/cluster/postgres';
import { runLoadChild } from './load/child.ts';
import { refreshTokenOf, startSeededCluster } from './seeded-copy.ts';

interface TableSize {
  rows: number;
  bytes: number;
}

type Snapshot = Record<string, TableSize>;

async function snapshot(db: Awaited<ReturnType<typeof createDb>>): Promise<Snapshot> {
  await sql`analyze`.execute(db.kysely);
  const tables = await sql<{ name: string }>`
    select tablename as name from pg_tables where schemaname = 'public' order by tablename`.execute(
    db.kysely,
  );
  const out: Snapshot = {};
  for (const { name } of tables.rows) {
    const r = await sql<{ rows: string; bytes: string }>`
      select (select count(*) from ${sql.table(name)})::text as rows,
             pg_total_relation_size(${name}::regclass)::text as bytes`.execute(db.kysely);
    out[name] = { rows: Number(r.rows[0]!.rows), bytes: Number(r.rows[0]!.bytes) };
  }
  return out;
}

/** Rows gained per unit of the phase and bytes per gained row, for the tables that grew. */
function growth(before: Snapshot, after: Snapshot, units: number) {
  const out: Record<string, { rowsPerUnit: number; bytesPerRow: number | null }> = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { rows: 0, bytes: 0 };
    const rows = a.rows - b.rows;
    if (rows <= 0) continue;
    out[name] = {
      rowsPerUnit: Math.round((rows / units) * 100) / 100,
      // Below a few dozen rows the growth is whole 8 kB pages, not rows.
      bytesPerRow: rows >= 30 ? Math.round((a.bytes - b.bytes) / rows) : null,
    };
  }
  return out;
}

export async function benchTableGrowth(options: { signIns: number; refreshSec: number }) {
  const postgres = await startCluster();
  const { cluster, databaseUrl } = await startSeededCluster(postgres.url);
  const db = await createDb({ url: databaseUrl });
  try {
    const seeded = await snapshot(db);
    // Four sign-ins at a time, each in its own browser jar.
    const tokens: string[] = [];
    let started = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (started < options.signIns) {
          started++;
          tokens.push(await refreshTokenOf(cluster.urls));
        }
      }),
    );
    const signedIn = await snapshot(db);
    const refreshed = await runLoadChild<{ latencies: number[]; failures: number }>('refresh-chains', {
      tokenUrl: `${cluster.urls.oauth2Public.replace('localhost', '127.0.0.1')}/oauth2/token`,
      clientId: 'platform',
      tokens: tokens.slice(0, 16),
      durationSec: options.refreshSec,
    });
    const refreshes = refreshed.latencies.length;
    const after = await snapshot(db);
    return {
      signIns: options.signIns,
      refreshes,
      refreshFailures: refreshed.failures,
      perSignIn: growth(seeded, signedIn, options.signIns),
      perRefresh: growth(signedIn, after, Math.max(1, refreshes)),
      // Every table, as it stands at the end (rows, bytes with indexes): the ones that did not grow too.
      tables: after,
      seededPeople: DEMO_USERS.length,
    };
  } finally {
    await db.close();
    await cluster.close();
    postgres.stop();
  }
}
