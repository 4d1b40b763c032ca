import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Result } from 'autocannon';
import { createDb } from '@acme/db';
import { freePort } from '@acme/test-kit/free-port';
import { start } from '@acme/identity';
import { createIdentityAdminClient } from '@acme/identity-contract/admin-client';
import { runLoadChild } from './load/child.ts';
import { passwordLogin } from './load/password-login.ts';
import { summarise } from './summarise.ts';

/** autocannon in a child process on the load core. */
const autocannon = (options: Record<string, unknown>) => runLoadChild<Result>('autocannon', options);

const EMAIL = 'bench@example.com';
const PASSWORD = 'bench passphrase for identity 1';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Identity service workloads, in process on PGlite (temp dir) on free ports:
 * (a) whoami with a valid cookie (session cache on), (b) whoami with every request reaching the database
 * (a second instance with the cache off),
 * (c) password login (create flow + submit; argon2id 19 MiB, t=2, p=1).
 */
export async function benchIdentity(opts: {
  durationSec: number;
  connections: number;
  /** Only workloads (a) and (b): whoami with a valid cookie, with the cache and without (no logins, no flood). */
  whoamiOnly?: boolean;
  /** A PostgreSQL server database (e.g. `npm run bench -- --postgres`) instead of PGlite. */
  databaseUrl?: string;
}): Promise<Record<string, unknown>> {
  const dir = await mkdtemp(join(tmpdir(), 'identity-bench-'));
  const db = await createDb(opts.databaseUrl ? { url: opts.databaseUrl } : { dataDir: dir });
  const database = opts.databaseUrl ? 'PostgreSQL (pool of 10)' : 'pglite (temp dir)';
  const [publicPort, adminPort] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const env = (pub: number, adm: number, extra: Record<string, string> = {}) => ({
    IDENTITY_PUBLIC_PORT: String(pub),
    IDENTITY_ADMIN_PORT: String(adm),
    IDENTITY_MANAGEMENT_PORT: '0',
    IDENTITY_PUBLIC_URL: `http://127.0.0.1:${pub}`,
    IDENTITY_ADMIN_URL: `http://127.0.0.1:${adm}`,
    // The load generator is one IP: keep the per-IP failure limit out of the way (no failures are made anyway).
    IDENTITY_IP_FAILURE_LIMIT: '1000000',
    ...extra,
  });
  const service = await start({ db, logger: false, env: env(publicPort, adminPort) });
  try {
    // Throws (with the status) unless the identity was created.
    await createIdentityAdminClient({ baseUrl: adminUrl }).createIdentity({
      schema_id: 'default',
      traits: { email: EMAIL, name: { first: 'Bench', last: 'User' } },
      credentials: { password: { config: { password: PASSWORD } } },
      verifiable_addresses: [{ value: EMAIL, verified: true, via: 'email' }],
    });

    // A session cookie for the whoami runs.
    const login = await passwordLogin(publicUrl, EMAIL, PASSWORD);
    if (login.status !== 200) throw new Error(`login failed: ${login.status}`);
    const sessionCookie = login.cookie;

    const whoami = summarise(
      await autocannon({
        url: `${publicUrl}/sessions/whoami`,
        connections: opts.connections,
        duration: opts.durationSec,
        headers: { cookie: sessionCookie, accept: 'application/json' },
      }),
    );

    // (b) the same on a second instance over the same database with the session cache turned off,
    // so that every whoami runs the session and identity query (the session cookie is valid there too).
    const [noCachePublic, noCacheAdmin] = [await freePort(), await freePort()];
    const noCache = await start({
      db,
      logger: false,
      env: env(noCachePublic, noCacheAdmin, { IDENTITY_SESSION_CACHE_TTL: '0' }),
    });
    let whoamiNoCache;
    try {
      whoamiNoCache = summarise(
        await autocannon({
          url: `http://127.0.0.1:${noCachePublic}/sessions/whoami`,
          connections: opts.connections,
          duration: opts.durationSec,
          headers: { cookie: sessionCookie, accept: 'application/json' },
        }),
      );
    } finally {
      await noCache.close();
    }
    const cacheNote =
      'whoami answers from a per-instance session cache (IDENTITY_SESSION_CACHE_TTL, evicted by LISTEN/NOTIFY): ' +
      '(a) "whoami, valid cookie" is served from it after the first request; (b) "every request reaching the ' +
      'database" is a second instance on the same database with IDENTITY_SESSION_CACHE_TTL=0.';
    if (opts.whoamiOnly) {
      return {
        note: cacheNote,
        database,
        whoamiValidCookie: whoami,
        whoamiEveryRequestHitsDatabase: whoamiNoCache,
      };
    }

    // (c) password logins driven by a concurrent loop (each login is two dependent requests), from a
    // load child; the event-loop lag is the server side's.
    const concurrency = Math.max(1, Math.min(opts.connections, 16));
    const lag = monitorEventLoopDelay({ resolution: 10 });
    lag.enable();
    const loop = await runLoadChild<{ latencies: number[]; failures: number; elapsedSec: number }>(
      'password-logins',
      { publicUrl, email: EMAIL, password: PASSWORD, durationSec: opts.durationSec, concurrency },
    );
    lag.disable();
    const latencies = loop.latencies.sort((x, y) => x - y);
    const failures = loop.failures;
    const elapsedSec = loop.elapsedSec;
    const round = (n: number) => Math.round(n * 10) / 10;

    // (d) whoami while logins run at about 80 % of the measured login rate (hashing must not starve it).
    const floodRate = Math.max(1, Math.floor((latencies.length / elapsedSec) * 0.8));
    const floodLag = monitorEventLoopDelay({ resolution: 10 });
    floodLag.enable();
    const [floodLoop, whoamiUnderFloodRaw] = await Promise.all([
      runLoadChild<{ latencies: number[]; failures: number; elapsedSec: number }>('password-logins', {
        publicUrl,
        email: EMAIL,
        password: PASSWORD,
        durationSec: opts.durationSec,
        ratePerSec: floodRate,
      }),
      autocannon({
        url: `${publicUrl}/sessions/whoami`,
        connections: Math.min(opts.connections, 10),
        duration: opts.durationSec,
        headers: { cookie: sessionCookie, accept: 'application/json' },
      }),
    ]);
    floodLag.disable();
    const whoamiUnderFlood = summarise(whoamiUnderFloodRaw);
    const floodLogins = floodLoop.latencies.length;

    return {
      note: `${cacheNote} autocannon reports p90/p97.5/p99 rather than p95 for (a)/(b).`,
      database,
      whoamiValidCookie: whoami,
      whoamiEveryRequestHitsDatabase: whoamiNoCache,
      passwordLogin: {
        loginsPerSec: round(latencies.length / elapsedSec),
        concurrency,
        latencyMs: {
          p50: round(percentile(latencies, 50)),
          p95: round(percentile(latencies, 95)),
          p99: round(percentile(latencies, 99)),
          max: round(latencies[latencies.length - 1] ?? 0),
        },
        completed: latencies.length,
        failures,
        eventLoopLagP99Ms: round(lag.percentile(99) / 1e6),
        durationSec: round(elapsedSec),
        hashing: 'argon2id m=19456 KiB, t=2, p=1 (@node-rs/argon2, off the event loop)',
      },
      whoamiDuringLoginFlood: {
        offeredLoginsPerSec: floodRate,
        completedLoginsPerSec: round(floodLogins / opts.durationSec),
        whoami: whoamiUnderFlood,
        eventLoopLagP99Ms: round(floodLag.percentile(99) / 1e6),
      },
    };
  } finally {
    await service.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

// Direct run: `node --import tsx bench/identity-bench.ts [seconds] [connections]`
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchIdentity({
    durationSec: Number(process.argv[2] ?? 5),
    connections: Number(process.argv[3] ?? 50),
  });
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}
