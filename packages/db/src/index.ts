import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { prepareStatementsOn } from './pg-prepared.ts';
import { publishStatements } from './query-channel.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import {
  pgliteAssets,
  pgliteDist,
  startPGliteWorker,
  type PGliteClient,
  type WorkerMemory,
} from './pglite-worker-client.ts';

export type { WorkerMemory } from './pglite-worker-client.ts';

export { sql };
// For tests that record and EXPLAIN the statements a code path sends (dev/test/query-plans.pg.int.test.ts).
export { CompiledQuery, PostgresQueryCompiler } from 'kysely';
export type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
export {
  migrate,
  migrateAll,
  migrationStatus,
  prepareSchema,
  PendingMigrationsError,
  type Migration,
  type MigrationSet,
  type MigrationState,
} from './migrations.ts';
export { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from './unavailable.ts';

// int8 and numeric come back as numbers on both drivers (counts, epoch ms).
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface Database {
  /** Untyped handle; services narrow it with `typed<T>()`. */
  kysely: Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  kind: 'pglite' | 'postgres';
  /**
   * Receives `NOTIFY`s on `channel` (sent by `pg_notify` in any transaction, delivered on its commit).
   * `ready` is called once the channel is listened to (again after each reconnect) and `lost` when the
   * listening connection goes away: notices may have been missed from then until the next `ready`.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<Listener>;
  close(): Promise<void>;
  /** PGlite only: the memory of the worker thread that runs it (its V8 heap, the WebAssembly memory). */
  workerMemory?(): Promise<WorkerMemory>;
  /** Connection-pool use (PostgreSQL only; PGlite is one connection, in a worker thread). */
  poolStats?(): { total: number; idle: number; waiting: number; max: number };
}

export interface ListenHandlers {
  notice(payload: string): void;
  ready(): void;
  lost(err: unknown): void;
}

export interface Listener {
  close(): Promise<void>;
}

/** Timings of the dedicated listening connection on PostgreSQL. */
export interface ListenOptions {
  /** Wait before reconnecting; doubles on each failed attempt up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
  /** A `select 1` on the listening connection this often; no answer within the same time drops it. */
  heartbeatMs?: number;
}

export function typed<T>(db: Database): Kysely<T> {
  return db.kysely as Kysely<T>;
}

export interface DbOptions {
  /** postgres://… selects a PostgreSQL server; absent selects embedded PGlite. */
  url?: string | undefined;
  /** PGlite data directory; absent means in memory. */
  dataDir?: string | undefined;
  /**
   * In-memory PGlite only: start from this dump of an initialised data directory (`dumpDataDir`)
   * instead of running initdb, which is most of PGlite's start-up time.
   */
  template?: Blob | undefined;
  listen?: ListenOptions;
  /** PostgreSQL: most connections the pool opens (default 10). */
  poolMax?: number | undefined;
  /**
   * PostgreSQL: most named (prepared) statements per connection (default 200; 0 turns naming off).
   * See pg-prepared.ts.
   */
  preparedPerConnection?: number | undefined;
}

/** How long opening a connection to PostgreSQL may take. */
const CONNECT_TIMEOUT_MS = 5_000;

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * LISTEN on its own connection (pooled connections cannot hold a LISTEN), reconnecting with back-off
 * after an error, an end or a heartbeat that went unanswered.
 */
async function listenOnPostgres(
  url: string,
  channel: string,
  h: ListenHandlers,
  opts: ListenOptions,
): Promise<Listener> {
  const retryMs = opts.retryMs ?? 100;
  const maxRetryMs = opts.maxRetryMs ?? 5000;
  const heartbeatMs = opts.heartbeatMs ?? 5000;
  let closed = false;
  let client: pg.Client | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let delay = retryMs;
  let first: ((err?: unknown) => void) | undefined;

  const drop = (c: pg.Client, err: unknown) => {
    if (client !== c) return; // already dropped
    client = undefined;
    clearInterval(heartbeat);
    c.removeAllListeners('notification');
    c.on('error', () => undefined);
    c.end().catch(() => undefined);
    h.lost(err);
    if (!closed) {
      retry = setTimeout(connect, delay);
      delay = Math.min(delay * 2, maxRetryMs);
    }
  };

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({
      connectionString: url,
      application_name: `listen:${channel}`,
      keepAlive: true,
      connectionTimeoutMillis: heartbeatMs,
    });
    client = c;
    c.on('error', (err) => drop(c, err));
    c.on('end', () => drop(c, new Error('listening connection ended')));
    c.on('notification', (m) => {
      if (m.channel === channel) h.notice(m.payload ?? '');
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${quoteIdent(channel)}`);
    } catch (err) {
      if (first) {
        first(err);
        first = undefined;
      }
      drop(c, err);
      return;
    }
    if (client !== c || closed) return;
    delay = retryMs;
    heartbeat = setInterval(() => {
      const timer = setTimeout(() => drop(c, new Error('listening connection did not answer')), heartbeatMs);
      c.query('select 1').then(
        () => clearTimeout(timer),
        (err: unknown) => {
          clearTimeout(timer);
          drop(c, err);
        },
      );
    }, heartbeatMs);
    heartbeat.unref();
    h.ready();
    if (first) {
      first();
      first = undefined;
    }
  };

  // The first attempt settles the returned promise either way; later ones run in the background.
  await new Promise<void>((resolve) => {
    first = () => resolve();
    void connect();
  });
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      clearInterval(heartbeat);
      const c = client;
      client = undefined;
      if (c) {
        c.removeAllListeners();
        c.on('error', () => undefined);
        await c.end().catch(() => undefined);
      }
    },
  };
}

/**
 * PGlite delivers notices as part of the query that commits them (the worker posts them before that
 * query's result). LISTEN and UNLISTEN go through Kysely's connection queue so that they never run
 * inside another caller's open transaction.
 */
async function listenOnPglite(
  pglite: PGliteClient,
  kysely: Kysely<unknown>,
  channel: string,
  h: ListenHandlers,
): Promise<Listener> {
  const unlisten = await kysely.connection().execute(() => pglite.listen(channel, (p) => h.notice(p)));
  h.ready();
  return {
    async close() {
      if (pglite.closed) return;
      await kysely.connection().execute(() => unlisten());
    },
  };
}

export async function createDb(options: DbOptions = {}): Promise<Database> {
  if (options.url) {
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolMax ?? 10,
      // A server that does not answer a new connection in this time is taken as away (503), not waited for.
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // An idle connection the server ended (a restart, a failover) is dropped by the pool, which
    // opens a new one when next needed; without a listener its error would end the process.
    pool.on('error', () => undefined);
    // So does a connection in use when the server ends it: the query on it fails (a 503 then), and
    // the pool discards the connection when it is released.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const prepared = options.preparedPerConnection ?? 200;
    if (prepared > 0) prepareStatementsOn(pool, prepared);
    publishStatements(pool);
    const kysely = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    const url = options.url;
    return {
      kysely,
      kind: 'postgres',
      listen: (channel, h) => listenOnPostgres(url, channel, h, options.listen ?? {}),
      close: () => kysely.destroy(),
      poolStats: () => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: pool.options.max,
      }),
    };
  }
  if (options.dataDir) await initialiseDataDir(options.dataDir);
  // PGlite runs PostgreSQL as WebAssembly on the calling thread: in a worker thread, a query blocks
  // that thread and not the services' event loop.
  const pglite = await startPGliteWorker({
    ...(options.dataDir
      ? { dataDir: options.dataDir }
      : { template: options.template ? await options.template.arrayBuffer() : undefined }),
    assets: await pgliteAssets(),
  });
  const kysely = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  return {
    kysely,
    kind: 'pglite',
    workerMemory: () => pglite.memory(),
    listen: (channel, h) => listenOnPglite(pglite, kysely, channel, h),
    close: () => kysely.destroy(),
  };
}

/**
 * Creates and initialises a PGlite data directory unless it holds one already (createDb does this
 * too; `npm install` does it ahead of the first `npm start`, scripts/prepare.ts). initdb writes
 * into a directory beside it, renamed into place when done: an initdb stopped half-way (Ctrl+C
 * during the install) leaves no directory that looks initialised.
 */
export async function initialiseDataDir(dataDir: string): Promise<void> {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const present = await readdir(dataDir).catch(() => []);
  if (present.length > 0) throw new Error(`${dataDir} holds files but no PostgreSQL data directory`);
  await mkdir(dirname(dataDir), { recursive: true });
  const scratch = await mkdtemp(`${dataDir}.initdb-`);
  try {
    await initialiseApart(scratch);
    // Onto an empty directory too, never onto one with files (ENOTEMPTY): another start that
    // initialised it meanwhile wins.
    await rename(scratch, dataDir).catch((err: unknown) => {
      if (!existsSync(join(dataDir, 'PG_VERSION'))) throw err;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Runs PGlite's initdb for a new data directory in a short-lived child process. initdb grows the
 * WebAssembly memory to several hundred megabytes, and WebAssembly memory never shrinks: done in
 * the long-running process, that stays resident for its whole life (measured: about 750 MB after
 * initdb against about 270 MB when opening an initialised directory).
 */
function initialiseApart(dataDir: string): Promise<void> {
  const entry = new URL('index.js', pgliteDist()).href;
  const script = `const { PGlite } = await import(${JSON.stringify(entry)});
const db = new PGlite(process.argv[1]); await db.waitReady; await db.close();`;
  return new Promise((resolveInit, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolveInit() : reject(new Error(`PGlite initdb exited with ${code ?? 'a signal'}`)),
    );
  });
}

/**
 * A fresh, empty database for one test file: in-memory PGlite, or, when the test run
 * started a PostgreSQL cluster (TEST_DATABASE_URL), a new database on it.
 */
export async function createTestDb(): Promise<Database> {
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) {
    // The test run's global set-up may leave a dump of a freshly initialised PGlite (see
    // packages/test-kit): loading it takes under a second, initdb several.
    const template = process.env.PGLITE_TEMPLATE;
    if (template && existsSync(template)) return createDb({ template: new Blob([await readFile(template)]) });
    return createDb();
  }
  return createDb({ url: await createDatabase(admin) });
}

/**
 * Creates a new, empty database on the server of `adminUrl` and returns its URL: for tests that
 * hand one database to several processes (each connects on its own).
 */
export async function createDatabase(adminUrl: string): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`create database ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
