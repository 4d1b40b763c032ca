// Cost as the work grows (`BENCH_ONLY=scale npm run bench`, and `-- --postgres`): for each size
// in BENCH_SCALE_SIZES (default 10k,100k,1M on PostgreSQL; 10k,100k on PGlite) a database of its
// own is seeded in bulk (bench/scale-seed.ts) and every hot path is measured on it:
// - over HTTP, the identity service in process with its session cache off: whoami (every request
//   reaches the database) and password login (flow + submit, argon2id);
// - over HTTP, the authorization server in process: code exchange and refresh (bench/oauth2-bench.ts);
// - in process, the users service's own query functions on the same database (what the console's and
//   SCIM's routes run): the member list and a name-prefix search in the largest organisation, its
//   event page, SCIM `userName eq` and a `startIndex` page deep in the largest organisation;
// - the cleanup of expired flows, sessions and grants (as the services run it) while whoami runs:
//   its duration and whoami's p99 during it against without.
// The figure at each size and its ratio to the smallest size are printed and returned.
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Result } from 'autocannon';
import { createDb, migrate, sql, typed, type Database } from '@acme/db';
import { systemClock } from '@acme/db/clock';
import { migrations as usersMigrations } from '@acme/users';
import { migrations as oauth2Migrations } from '@acme/oauth2';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { cleanupExpired } from '../services/identity/src/db/cleanup.ts';
import { loadConfig as identityConfig } from '../services/identity/src/config.ts';
import type { IdentityDb } from '../services/identity/src/db/schema.ts';
import { deleteExpired } from '../services/oauth2/src/adapter/postgres-adapter.ts';
import { listMembers } from '../services/users/src/members/members.ts';
import { listEvents } from '../services/users/src/events/events.ts';
import { listUsers } from '../services/users/src/scim/users.ts';
import type { UsersContext } from '../services/users/src/context.ts';
import type { UsersDb } from '../services/users/src/db-types.ts';
import { runLoadChild } from './load/child.ts';
import { passwordLogin } from './load/password-login.ts';
import { measure, startOurs } from './oauth2-bench.ts';
import { emailOf, organisationId, seed } from './scale-seed.ts';
import { summarise } from './summarise.ts';
import { identityService } from './identity-service.ts';

const PASSWORD = 'scale bench passphrase 1';
const BENCH_EMAIL = 'scale-bench@example.com';

const autocannon = (options: Record<string, unknown>) => runLoadChild<Result>('autocannon', options);

function quantiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    Number((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0).toFixed(2));
  return { p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99), samples: sorted.length };
}

async function timeQuery(samples: number, run: (i: number) => Promise<unknown>) {
  await run(0);
  const times: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const t0 = performance.now();
    await run(i + 1);
    times.push(performance.now() - t0);
  }
  return quantiles(times);
}

interface SizeOptions {
  durationSec: number;
  connections: number;
  samples: number;
  /** A PostgreSQL server (a database of its own is made per size); PGlite in a temp dir without. */
  serverUrl?: string;
}

async function databaseFor(people: number, serverUrl: string | undefined) {
  if (!serverUrl) {
    const dir = await mkdtemp(join(tmpdir(), 'scale-bench-'));
    const db = await createDb({ dataDir: dir });
    return { db, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `scale_${process.pid}_${people}`;
  const server = await createDb({ url: serverUrl, poolMax: 1, preparedPerConnection: 0 });
  await sql.raw(`create database ${name}`).execute(server.kysely);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await createDb({ url: url.toString() });
  return {
    db,
    drop: async () => {
      await sql.raw(`drop database ${name} with (force)`).execute(server.kysely);
      await server.close();
    },
  };
}

/** The cleanups the services run on a timer, once, as they run them. */
async function cleanupOnce(db: Database) {
  const t0 = performance.now();
  await cleanupExpired(typed<IdentityDb>(db), new Date(), identityConfig({}).retention);
  await deleteExpired(db, systemClock);
  return performance.now() - t0;
}

async function measureSize(people: number, opts: SizeOptions) {
  const { db, drop } = await databaseFor(people, opts.serverUrl);
  const cleanup: (() => Promise<unknown>)[] = [];
  try {
    await migrate(db, 'users', usersMigrations);
    await migrate(db, 'oauth2', oauth2Migrations);
    const identity = await identityService(db, {
      IDENTITY_IP_FAILURE_LIMIT: '1000000',
      // Every whoami reaches the database.
      IDENTITY_SESSION_CACHE_TTL: '0',
    });
    cleanup.push(() => identity.service.close());
    // The one argon2id hash: the identity service computes it for one person made through its admin
    // API; every seeded person's password credential is a copy of it.
    const benchIdentity = await createIdentityAdminClient({ baseUrl: identity.adminUrl }).createIdentity({
      schema_id: 'default',
      traits: { email: BENCH_EMAIL, name: { first: 'Scale', last: 'Bench' } },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: BENCH_EMAIL, verified: true, via: 'email' }],
    });
    const credential = await sql<{ config: unknown }>`
      select config from identity_credentials where identity_id = ${benchIdentity.id} and type = 'password'`.execute(
      db.kysely,
    );
    const seedStarted = performance.now();
    const plan = await seed(db, people, {
      passwordConfig: credential.rows[0]!.config,
      onProgress: (done) => process.stdout.write(`\r  seeded ${done}/${people}`),
    });
    const seedSec = Number(((performance.now() - seedStarted) / 1000).toFixed(1));
    console.log(` in ${seedSec} s`);
    // What the seeded tables weigh (rows, and bytes with their indexes): the growth section of docs/operations.md.
    const tables = await sql<{ table: string; rows: number; bytes: string }>`
      select relname as table, reltuples::bigint as rows, pg_total_relation_size(oid) as bytes from pg_class
      where relkind = 'r' and relnamespace = current_schema()::regnamespace and reltuples > 0 order by 3 desc`.execute(
      db.kysely,
    );
    const largest = plan.organisations[0]!;
    const largestOrg = organisationId(0);
    // A seeded person of the largest organisation signs in (their stored hash is the copy).
    const someone = emailOf(Math.floor(largest.size / 2));
    const login = await passwordLogin(identity.publicUrl, someone, PASSWORD);
    if (login.status !== 200) throw new Error(`scale: seeded login failed (${login.status})`);

    const whoamiRun = async (durationSec: number) =>
      summarise(
        await autocannon({
          url: `${identity.publicUrl}/sessions/whoami`,
          connections: opts.connections,
          duration: durationSec,
          headers: { cookie: login.cookie, accept: 'application/json' },
        }),
      );
    await whoamiRun(1); // warm-up
    const whoami = await whoamiRun(opts.durationSec);

    const logins = await runLoadChild<{ latencies: number[]; failures: number; elapsedSec: number }>(
      'password-logins',
      {
        publicUrl: identity.publicUrl,
        email: someone,
        password: PASSWORD,
        durationSec: opts.durationSec,
        concurrency: 4,
      },
    );
    const passwordLoginFigures = {
      requestsPerSec: Math.round(logins.latencies.length / logins.elapsedSec),
      ...quantiles(logins.latencies),
      failures: logins.failures,
    };

    const oauth2 = await startOurs({ kind: 'seeded', db });
    cleanup.push(() => oauth2.close());
    const tokenOpts = { durationSec: opts.durationSec, connections: opts.connections };
    const exchange = await measure(oauth2, 'code', tokenOpts);
    const refresh = await measure(oauth2, 'refresh', tokenOpts);

    const users = typed<UsersDb>(db);
    const ctx = { db: users } as UsersContext;
    const scope = {
      organisationId: largestOrg,
      tokenId: 'scale',
      baseUrl: 'http://scale.example/scim/v2',
      origin: { kind: 'directory', id: 'scale' },
    } as unknown as Parameters<typeof listUsers>[1];
    const memberList = await timeQuery(opts.samples, (i) =>
      listMembers(users, largestOrg, { page: 1 + (i % 5), pageSize: 50 }),
    );
    const search = (prefixes: string[]) =>
      timeQuery(opts.samples, (i) =>
        listMembers(users, largestOrg, { q: prefixes[i % prefixes.length]!, page: 1, pageSize: 50 }),
      );
    const memberSearch = await search(['bac', 'kil', 'sot', 'mun', 'yoz']);
    // One letter: a tenth of the organisation each, and "p", with which every seeded address starts.
    const memberSearchOneLetter = await search(['b', 'k', 's', 'm', 'p']);
    const eventPage = await timeQuery(opts.samples, () =>
      listEvents(users, { organisationId: largestOrg, limit: 51 }),
    );
    const scimEq = await timeQuery(opts.samples, (i) =>
      listUsers(ctx, scope, [{ field: 'userName', value: emailOf((i * 7919) % largest.size) }] as never, {
        startIndex: 1,
        count: 100,
      }),
    );
    // A directory walking the largest organisation page by page (as SCIM clients do); the pages past
    // 90 % of the way are the deep ones. Every person is seen once.
    const pageTimes: number[] = [];
    const seen = new Set<string>();
    for (let startIndex = 1; startIndex <= largest.size; startIndex += 100) {
      const t0 = performance.now();
      const pageOf = await listUsers(ctx, scope, [], { startIndex, count: 100 });
      if (startIndex > largest.size * 0.9) pageTimes.push(performance.now() - t0);
      for (const r of pageOf.Resources) seen.add(r.id);
    }
    if (seen.size !== largest.size)
      throw new Error(`scale: the SCIM walk saw ${seen.size} of ${largest.size}`);
    const scimDeepPage = quantiles(pageTimes);

    // Cleanup while whoami runs: its duration, and whoami's p99 during it against the run above.
    const [underCleanup, cleanupMs] = await Promise.all([
      whoamiRun(opts.durationSec),
      new Promise((r) => setTimeout(r, 500)).then(() => cleanupOnce(db)),
    ]);
    const removed = await sql<{ n: string }>`
      select (select count(*) from identity_sessions where expires_at < now() - interval '7 days')
           + (select count(*) from identity_flows where expires_at < now() - interval '1 day')
           + (select count(*) from oauth2_models where expires_at < now()) as n`.execute(db.kysely);

    return {
      people,
      organisations: plan.organisations.length,
      largestOrganisation: largest.size,
      largeOrganisations: plan.largeCount,
      seedSec,
      tables: Object.fromEntries(
        tables.rows.map((t) => [t.table, { rows: Number(t.rows), bytes: Number(t.bytes) }]),
      ),
      whoami: { requestsPerSec: whoami.requestsPerSec, latencyMs: whoami.latencyMs, non2xx: whoami.non2xx },
      passwordLogin: passwordLoginFigures,
      codeExchange: {
        requestsPerSec: exchange.requestsPerSec,
        latencyMs: exchange.latencyMs,
        non2xx: exchange.non2xx,
      },
      refresh: {
        requestsPerSec: refresh.requestsPerSec,
        latencyMs: refresh.latencyMs,
        non2xx: refresh.non2xx,
      },
      memberList,
      memberSearch,
      memberSearchOneLetter,
      eventPage,
      scimEq,
      scimDeepPage,
      cleanup: {
        durationMs: Math.round(cleanupMs),
        leftOver: Number(removed.rows[0]!.n),
        whoamiP99Ms: underCleanup.latencyMs.p99,
        whoamiP99WithoutMs: whoami.latencyMs.p99,
        addedP99Ms: Number((underCleanup.latencyMs.p99 - whoami.latencyMs.p99).toFixed(2)),
      },
    };
  } finally {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    await db.close();
    await drop();
  }
}

/** Per workload: the figure, whether more is better, and the goal at the largest size. */
type SizeFigures = Awaited<ReturnType<typeof measureSize>>;

/** A goal at the largest size: its words, and whether the figure (and its ratio to the smallest size) meets it. */
type Goal = { text: string; met: (value: number, ratio: number | null) => boolean } | undefined;
const flat: Goal = { text: '≤ 1.3×', met: (_v, ratio) => ratio !== null && ratio <= 1.3 };
const atMost = (ms: number): Goal => ({ text: `≤ ${ms} ms`, met: (value) => value <= ms });

const FIGURES: [string, (r: SizeFigures) => number, 'lower' | 'higher', Goal][] = [
  ['whoami, req/s, no cache', (r) => r.whoami.requestsPerSec, 'higher', flat],
  ['password login, logins/s', (r) => r.passwordLogin.requestsPerSec, 'higher', flat],
  ['code exchange, req/s', (r) => r.codeExchange.requestsPerSec, 'higher', flat],
  ['refresh, req/s', (r) => r.refresh.requestsPerSec, 'higher', flat],
  ['SCIM `userName eq`, p95 ms', (r) => r.scimEq.p95Ms, 'lower', flat],
  ['member list, p95 ms', (r) => r.memberList.p95Ms, 'lower', undefined],
  ['member search, 3 letters, p95 ms', (r) => r.memberSearch.p95Ms, 'lower', atMost(50)],
  ['member search, 1 letter, p95 ms', (r) => r.memberSearchOneLetter.p95Ms, 'lower', atMost(50)],
  ['event page, p95 ms', (r) => r.eventPage.p95Ms, 'lower', atMost(50)],
  ['SCIM deep page, p95 ms', (r) => r.scimDeepPage.p95Ms, 'lower', atMost(100)],
  ['cleanup of the expired backlog, ms', (r) => r.cleanup.durationMs, 'lower', undefined],
  ['whoami p99 added during cleanup, ms', (r) => r.cleanup.addedP99Ms, 'lower', atMost(20)],
  ['seeding, s', (r) => r.seedSec, 'lower', undefined],
];

/** The whole run's goal: every size measured within this many minutes. */
const SCALE_RUN_GOAL_MIN = 15;

/**
 * Rows of workload × size: the figure, its cost ratio to the first size (>1: costlier), and the
 * goal at the last size with whether it is met there.
 */
function scaleTable(sizes: SizeFigures[]) {
  return FIGURES.map(([name, pick, better, goal]) => {
    const base = sizes[0] ? pick(sizes[0]) : 0;
    const figures = sizes.map((s) => {
      const value = pick(s);
      const ratio = better === 'higher' ? base / value : value / base;
      return {
        people: s.people as number,
        value,
        ratio: Number.isFinite(ratio) ? Number(ratio.toFixed(2)) : null,
      };
    });
    const last = figures.at(-1);
    return {
      workload: name,
      figures,
      goal: goal?.text ?? null,
      met: goal && last && figures.length > 1 ? goal.met(last.value, last.ratio) : null,
    };
  });
}

export async function benchScale(opts: Omit<SizeOptions, 'samples'> & { sizes: number[]; samples?: number }) {
  const sizes: (SizeFigures & { totalSec: number })[] = [];
  const started = performance.now();
  const loadAtStart = loadavg();
  for (const people of opts.sizes) {
    console.log(`▶ scale ${people} people on ${opts.serverUrl ? 'PostgreSQL' : 'PGlite'}`);
    const t0 = performance.now();
    const figures = await measureSize(people, { samples: 200, ...opts });
    sizes.push({ ...figures, totalSec: Math.round((performance.now() - t0) / 1000) });
  }
  const table = scaleTable(sizes);
  for (const row of table)
    console.log(
      `${row.workload.padEnd(36)} ${row.figures.map((f) => `${f.people}: ${f.value} (×${f.ratio})`).join('  ')}`,
    );
  return {
    storage: opts.serverUrl ? 'PostgreSQL' : 'PGlite',
    settings: { durationSec: opts.durationSec, connections: opts.connections, sizes: opts.sizes },
    totalSec: Math.round((performance.now() - started) / 1000),
    seedSec: Number(sizes.reduce((sum, s) => sum + s.seedSec, 0).toFixed(1)),
    // The 1-, 5- and 15-minute load averages: a run on a busy machine says so in its table.
    loadAverage: { atStart: loadAtStart, atEnd: loadavg() },
    goalMinutes: SCALE_RUN_GOAL_MIN,
    sizes,
    table,
  };
}
