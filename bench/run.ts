// `npm run bench`: every benchmark workload, written as JSON to bench/results/latest.json (and a
// time-stamped copy), and bench/README.md's results table regenerated from it (a BENCH_ONLY subset:
// the time-stamped copy only).
// BENCH_DURATION (seconds per workload, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_PORT_OFFSET (the browser and Lighthouse workloads start the system on the usual ports plus this,
// default 20000 and 21000), BENCH_ROUNDS (default 3: after a warm-up, the workloads run in interleaved rounds and the
// figures reported are the medians), BENCH_ONLY (comma-separated subset:
// ceiling,identity,oauth2,browser,lighthouse,enumeration,lifecycle; `whoami` runs only the identity service's whoami
// workload, `events` the security event log at 1 million events (BENCH_EVENTS) and
// `events-write` what writing security events costs password sign-in (its own interleaved rounds);
// `front-door` nginx in front of two processes against one: health, whoami, refresh (bench/front-door.ts);
// `tracing` what OpenTelemetry tracing costs password login and refresh (bench/tracing-cost.ts), and each
// traced request, call and statement on its own (bench/tracing-unit-costs.ts);
// `growth` the rows and bytes each table gains per sign-in and per refresh (bench/table-growth.ts;
// BENCH_GROWTH_SIGN_INS, default 100, BENCH_GROWTH_REFRESH_SEC, default 20);
// `import` the identity import of BENCH_IMPORT_IDENTITIES people (default 100,000; bench/identity-import.ts;
// alone, on PostgreSQL with `--postgres`);
// none is part of the default set), BENCH_ENUM_PAIRS (known/unknown address pairs
// per entry point, default 1000), BENCH_BROWSER_RUNS (default 20), BENCH_LIGHTHOUSE_RUNS (Lighthouse runs of
// the login route per preset, mobile and desktop, default 3; bench/lighthouse.ts), BENCH_LIGHTHOUSE_REPORTS (a folder
// where each Lighthouse run's full JSON report is kept, as <preset>-<run>.json), BENCH_LIFECYCLE_RUNS (runs of the
// account lifecycle model with a random seed, printed; default 100), BENCH_LIFECYCLE_STEPS (at most
// this many steps a run, default 16), BENCH_LIFECYCLE_SEED (replays one seed).
// `npm run bench -- --postgres`: the token workloads on a throwaway PostgreSQL cluster (started
// here, pinned with the servers, removed at the end), as one process and as 2 instances behind the
// cluster's nginx, each beside plain oidc-provider on the same server; written to
// bench/results/postgres-latest.json and bench/README.md's PostgreSQL table.
import { execSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { benchCeiling } from './ceiling.ts';
import { benchIdentity } from './identity-bench.ts';
import { benchOAuth2 } from './oauth2-bench.ts';
import { benchBrowserSignIn } from './browser-sign-in.ts';
import { benchLighthouse } from './lighthouse.ts';
import { benchEnumeration } from './enumeration.ts';
import { benchSoak } from './soak.ts';
import { benchSecurityEvents } from './security-events.ts';
import { benchEventsWrite } from './events-write.ts';
import { benchFrontDoor } from './front-door.ts';
import { benchTracingCost } from './tracing-cost.ts';
import { benchTableGrowth } from './table-growth.ts';
import { benchLifecycleModel } from './lifecycle-model.ts';
import { benchIdentityImport } from './identity-import.ts';
import { benchScale } from './scale.ts';
import { pinServerSide } from './load/child.ts';
import { medianOf } from './median.ts';
import { writeReadmeTable } from './readme-table.ts';
import { startCluster } from '@acme/cluster/postgres';
import { createDb, sql } from '@acme/db';

const gitSha = (() => {
  try {
    return execSync('git rev-parse HEAD', { cwd: import.meta.dirname })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
})();

// `npm run bench -- soak`: only the soak (SOAK_MINUTES, default 10), written to
// bench/results/soak-latest.json. SOAK_HEAP_SNAPSHOTS=<dir> also writes V8 heap snapshots after the
// warm-up and at the end (compare them with bench/heap-diff.ts).
if (process.argv.includes('soak')) {
  pinServerSide();
  const soak = await benchSoak({
    minutes: Number(process.env.SOAK_MINUTES ?? 10),
    heapSnapshotsDir: process.env.SOAK_HEAP_SNAPSHOTS || undefined,
  });
  const dir = join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'soak-latest.json'),
    JSON.stringify({ startedAt: new Date().toISOString(), gitSha, ...soak }, null, 2),
  );
  const { samples: _samples, ...summary } = soak;
  console.log(JSON.stringify(summary, null, 2));
  process.exit(soak.pass ? 0 : 1);
}

const scaleSizes = (fallback: string) =>
  (process.env.BENCH_SCALE_SIZES ?? fallback)
    .split(',')
    .map((n) => Number(n.replace(/k$/i, '000').replace(/m$/i, '000000')));

// `BENCH_ONLY=scale`: cost as the work grows (bench/scale.ts), alone; PGlite, or PostgreSQL with `--postgres`.
if (process.env.BENCH_ONLY === 'scale') {
  const pinning = pinServerSide();
  const onPostgres = process.argv.includes('--postgres');
  const cluster = onPostgres ? await startCluster() : undefined;
  let scale;
  try {
    scale = await benchScale({
      sizes: scaleSizes(onPostgres ? '10k,100k,1m' : '10k,100k'),
      durationSec: Number(process.env.BENCH_DURATION ?? 5),
      connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
      ...(cluster ? { serverUrl: cluster.url } : {}),
    });
  } finally {
    cluster?.stop();
  }
  const dir = join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  const startedAt = new Date().toISOString();
  const body = JSON.stringify(
    {
      startedAt,
      gitSha,
      pinning,
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      ...scale,
    },
    null,
    2,
  );
  const kind = onPostgres ? 'scale-postgres' : 'scale-pglite';
  await writeFile(join(dir, `${kind}-${startedAt}.json`.replaceAll(':', '-')), body);
  await writeFile(join(dir, `${kind}-latest.json`), body);
  console.log(`\nWritten to bench/results/${kind}-latest.json.`);
  if (onPostgres) await writeReadmeTable(JSON.parse(body) as Record<string, unknown>, 'scale');
  process.exit(0);
}

// `BENCH_ONLY=import`: the identity import alone; PGlite, or a throwaway PostgreSQL cluster with
// `--postgres`. Written to bench/results/import-<pglite|postgres>-latest.json.
if (process.env.BENCH_ONLY === 'import') {
  const onPostgres = process.argv.includes('--postgres');
  const cluster = onPostgres ? await startCluster() : undefined;
  let imported;
  try {
    imported = await benchIdentityImport({
      identities: Number(process.env.BENCH_IMPORT_IDENTITIES ?? 100_000),
      ...(cluster ? { databaseUrl: cluster.url } : {}),
    });
  } finally {
    cluster?.stop();
  }
  const dir = join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  const body = JSON.stringify({ startedAt: new Date().toISOString(), gitSha, ...imported }, null, 2);
  await writeFile(join(dir, `import-${onPostgres ? 'postgres' : 'pglite'}-latest.json`), body);
  process.exit(0);
}

if (process.argv.includes('--postgres')) {
  await benchOnPostgres();
  process.exit(0);
}

const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const only = new Set(
  (process.env.BENCH_ONLY ?? 'ceiling,identity,oauth2,browser,lighthouse,enumeration,lifecycle').split(','),
);
const opts = { durationSec, connections };

const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  gitSha,
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  storage: 'PGlite (embedded; one process, queries in a worker thread)',
  pinning: pinServerSide(),
  settings: { ...opts, rounds, warmUpSec: Math.min(3, durationSec) },
};

const workloads: [string, (o: typeof opts) => Promise<unknown>][] = [
  ['ceiling', (o) => benchCeiling(o)],
  ['identity', (o) => benchIdentity(o)],
  ['whoami', (o) => benchIdentity({ ...o, whoamiOnly: true })],
  ['oauth2', (o) => benchOAuth2(o)],
  ['browser', () => benchBrowserSignIn({ runs: Number(process.env.BENCH_BROWSER_RUNS ?? 20) })],
  [
    'lighthouse',
    () =>
      benchLighthouse({
        runs: Number(process.env.BENCH_LIGHTHOUSE_RUNS ?? 3),
        portOffset: Number(process.env.BENCH_PORT_OFFSET ?? 21_000),
      }),
  ],
  ['enumeration', () => benchEnumeration({ pairs: Number(process.env.BENCH_ENUM_PAIRS ?? 1000) })],
  [
    'events',
    () =>
      benchSecurityEvents({
        events: Number(process.env.BENCH_EVENTS ?? 1_000_000),
        samples: Number(process.env.BENCH_EVENT_SAMPLES ?? 500),
      }),
  ],
  // nginx in front of two processes against one, on PostgreSQL: identity's health and whoami, refresh.
  ['front-door', (o) => benchFrontDoor(o)],
  // Interleaves its own rounds (events on / off), so it runs once.
  ['events-write', (o) => benchEventsWrite({ ...o, rounds: Math.max(rounds, 5) })],
  // Tracing on (always_on, exported) against off, as processes; its own interleaved rounds too.
  ['tracing', (o) => benchTracingCost({ ...o, rounds: Math.max(rounds, 5) })],
  // Rows and bytes each table gains per sign-in and per refresh, on PostgreSQL (docs/operations.md).
  [
    'growth',
    () =>
      benchTableGrowth({
        signIns: Number(process.env.BENCH_GROWTH_SIGN_INS ?? 100),
        refreshSec: Number(process.env.BENCH_GROWTH_REFRESH_SEC ?? 20),
      }),
  ],
  // `npm run admin -- identities:import` of BENCH_IMPORT_IDENTITIES (default 100,000) people, timed.
  [
    'import',
    () => benchIdentityImport({ identities: Number(process.env.BENCH_IMPORT_IDENTITIES ?? 100_000) }),
  ],
  // Not a speed figure: the account lifecycle model with a random seed (printed) and more runs.
  [
    'lifecycle',
    () =>
      benchLifecycleModel({
        runs: Number(process.env.BENCH_LIFECYCLE_RUNS ?? 100),
        maxCommands: Number(process.env.BENCH_LIFECYCLE_STEPS ?? 16),
        ...(process.env.BENCH_LIFECYCLE_SEED ? { seed: Number(process.env.BENCH_LIFECYCLE_SEED) } : {}),
      }),
  ],
];
// The browser, Lighthouse and enumeration checks are many samples already (runs, pairs): they run once.
const repeated = new Set(['ceiling', 'identity', 'whoami', 'oauth2', 'front-door']);
const selected = workloads.filter(([name]) => only.has(name));

async function attempt(name: string, run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

// Warm-up: a short pass of every repeated workload, not reported.
for (const [name, run] of selected.filter(([n]) => repeated.has(n))) {
  console.log(`▶ warm-up ${name}`);
  await attempt(name, () => run({ ...opts, durationSec: Math.min(3, durationSec) }));
}

const perRound: Record<string, unknown[]> = {};
for (let round = 1; round <= rounds; round++) {
  for (const [name, run] of selected) {
    if (round > 1 && !repeated.has(name)) continue;
    console.log(`▶ round ${round}/${rounds} ${name}`);
    (perRound[name] ??= []).push(await attempt(name, () => run(opts)));
  }
}
for (const [name, runs] of Object.entries(perRound)) {
  const ok = runs.filter((r) => !(r && typeof r === 'object' && 'error' in r));
  results[name] = ok.length ? { ...(medianOf(ok) as object), rounds: ok.length } : runs[0];
  console.log(name, JSON.stringify(results[name], null, 2));
}

const dir = join(import.meta.dirname, 'results');
await mkdir(dir, { recursive: true });
const file = join(dir, `bench-${results.startedAt as string}.json`.replaceAll(':', '-'));
await writeFile(file, JSON.stringify(results, null, 2));
// A subset (BENCH_ONLY) is written to its time-stamped file only: latest.json and the README's table
// stay those of the last whole run, rather than becoming a table of the few workloads just run.
if (process.env.BENCH_ONLY) {
  console.log(`\nWritten to ${file} (a subset: latest.json and bench/README.md keep the last whole run).`);
  process.exit(0);
}
await writeFile(join(dir, 'latest.json'), JSON.stringify(results, null, 2));
await writeReadmeTable(results);
console.log(`\nWritten to ${file} and bench/results/latest.json; bench/README.md table regenerated.`);
process.exit(0);

/** The token workloads on PostgreSQL: one process and 2 instances, each beside plain oidc-provider, interleaved rounds. */
async function benchOnPostgres(): Promise<void> {
  const pinning = pinServerSide(); // before the cluster starts: PostgreSQL runs on the servers' core
  const cluster = await startCluster();
  const durationSec = Number(process.env.BENCH_DURATION ?? 10);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
  const results: Record<string, unknown> = {
    startedAt: new Date().toISOString(),
    gitSha,
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
    storage: 'PostgreSQL (throwaway cluster from @acme/test-kit, fsync off)',
    pinning,
    settings: {
      durationSec,
      connections,
      rounds,
      warmUpSec: Math.min(3, durationSec),
      accessTokenAlg: process.env.BENCH_ACCESS_TOKEN_ALG ?? 'ES256',
    },
  };
  const topologies = [
    ['oauth2OneProcess', 1],
    ['oauth2TwoInstances', 2],
  ] as const;
  try {
    for (const [name, instances] of process.env.BENCH_ONLY === 'whoami' ? [] : topologies) {
      console.log(`▶ warm-up ${name}`);
      await attempt(name, () =>
        benchOAuth2({
          durationSec: Math.min(3, durationSec),
          connections,
          storage: { kind: 'postgres', serverUrl: cluster.url, instances },
        }),
      );
    }
    const perRound: Record<string, unknown[]> = {};
    // whoami with every request reaching PostgreSQL (target ≥ 1,000 req/s, bench/README.md), on a database of its own.
    const whoami = async () => {
      const dbUrl = new URL(cluster.url);
      dbUrl.pathname = `/whoami_${process.pid}_${(whoamiDatabases += 1)}`;
      const server = await createDb({ url: cluster.url, poolMax: 1, preparedPerConnection: 0 });
      await sql.raw(`create database ${dbUrl.pathname.slice(1)}`).execute(server.kysely);
      await server.close();
      return benchIdentity({ durationSec, connections, whoamiOnly: true, databaseUrl: dbUrl.toString() });
    };
    let whoamiDatabases = 0;
    // BENCH_ONLY=oauth2 or =whoami: one of the two.
    const only = new Set((process.env.BENCH_ONLY ?? 'whoami,oauth2').split(','));
    for (let round = 1; round <= rounds; round++) {
      if (only.has('whoami')) {
        console.log(`▶ round ${round}/${rounds} whoamiPostgres`);
        (perRound.whoamiPostgres ??= []).push(await attempt('whoamiPostgres', whoami));
      }
      if (!only.has('oauth2')) continue;
      for (const [name, instances] of topologies) {
        console.log(`▶ round ${round}/${rounds} ${name}`);
        (perRound[name] ??= []).push(
          await attempt(name, () =>
            benchOAuth2({
              durationSec,
              connections,
              storage: { kind: 'postgres', serverUrl: cluster.url, instances },
            }),
          ),
        );
      }
    }
    for (const [name, runs] of Object.entries(perRound)) {
      const ok = runs.filter((r) => !(r && typeof r === 'object' && 'error' in r));
      results[name] = ok.length ? { ...(medianOf(ok) as object), rounds: ok.length } : runs[0];
      console.log(name, JSON.stringify(results[name], null, 2));
    }
  } finally {
    cluster.stop();
  }
  const dir = join(import.meta.dirname, 'results');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `postgres-${results.startedAt as string}.json`.replaceAll(':', '-'));
  await writeFile(file, JSON.stringify(results, null, 2));
  await writeFile(join(dir, 'postgres-latest.json'), JSON.stringify(results, null, 2));
  await writeReadmeTable(results, 'postgres');
  console.log(
    `\nWritten to ${file} and bench/results/postgres-latest.json; bench/README.md PostgreSQL table regenerated.`,
  );
}
