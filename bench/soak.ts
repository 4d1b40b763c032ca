import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { Result } from 'autocannon';
import { createDb } from '@acme/db';
import { createUser } from '../e2e/fixtures.ts';
import { LOOPBACK_TEST_LIMITS, startSystem } from '../scripts/system.ts';
import { runLoadChild } from './load/child.ts';
import { passwordLogin } from './load/password-login.ts';

/**
 * The soak (`npm run bench -- soak`): the whole system in this process, as `npm start` runs it, on
 * PGlite in a temporary directory, under mixed load for `minutes` (default 10): whoami with a
 * session cookie, `/login/config` look-ups and password logins at a steady rate, all from load
 * children on the other core. The resident set size is sampled every 5 s. After the first slice
 * (warm-up), growth is measured from the RSS of that point to the end; errors are every failed
 * request of every generator. Each sample also splits this thread's memory (V8 heap, external,
 * array buffers, which hold PGlite's WebAssembly memory when it runs on this thread). With
 * `heapSnapshotsDir`, V8 heap snapshots are written after the warm-up and at the end, for
 * `bench/heap-diff.ts`.
 */
export async function benchSoak(opts: { minutes: number; sliceSec?: number; heapSnapshotsDir?: string }) {
  const sliceSec = opts.sliceSec ?? 30;
  const dir = await mkdtemp(join(tmpdir(), 'soak-'));
  const db = await createDb({ dataDir: dir });
  const system = await startSystem({
    db,
    portOffset: 22_000,
    logLevel: 'silent',
    extraEnv: LOOPBACK_TEST_LIMITS,
  });
  const mb = () => Math.round((process.memoryUsage().rss / 1024 / 1024) * 10) / 10;
  const toMb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
  const samples: {
    atSec: number;
    rssMb: number;
    heapUsedMb: number;
    heapTotalMb: number;
    externalMb: number;
    arrayBuffersMb: number;
  }[] = [];
  const started = Date.now();
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    samples.push({
      atSec: Math.round((Date.now() - started) / 1000),
      rssMb: toMb(m.rss),
      heapUsedMb: toMb(m.heapUsed),
      heapTotalMb: toMb(m.heapTotal),
      externalMb: toMb(m.external),
      arrayBuffersMb: toMb(m.arrayBuffers),
    });
  }, 5_000);
  const snapshots: string[] = [];
  const snapshot = (name: string) => {
    if (!opts.heapSnapshotsDir) return;
    snapshots.push(writeHeapSnapshot(join(opts.heapSnapshotsDir, `soak-${name}.heapsnapshot`)));
  };
  let requests = 0;
  let errors = 0;
  let warmRss = 0;
  try {
    const user = await createUser(system.urls);
    const login = await passwordLogin(system.urls.identityPublic, user.email, user.password);
    if (login.status !== 200) throw new Error(`soak: login failed (${login.status})`);
    const slices = Math.max(2, Math.round((opts.minutes * 60) / sliceSec));
    for (let slice = 0; slice < slices; slice++) {
      const [whoami, config, logins] = await Promise.all([
        runLoadChild<Result>('autocannon', {
          url: `${system.urls.identityPublic}/sessions/whoami`,
          connections: 10,
          duration: sliceSec,
          headers: { cookie: login.cookie, accept: 'application/json' },
        }),
        runLoadChild<Result>('autocannon', {
          url: `${system.urls.usersPublic}/login/config?emailAddress=${encodeURIComponent(user.email)}`,
          connections: 2,
          duration: sliceSec,
        }),
        runLoadChild<{ latencies: number[]; failures: number }>('password-logins', {
          publicUrl: system.urls.identityPublic,
          email: user.email,
          password: user.password,
          durationSec: sliceSec,
          ratePerSec: 5,
        }),
      ]);
      for (const r of [whoami, config]) {
        requests += r.requests.total;
        errors += r.non2xx + r.errors + r.timeouts;
      }
      requests += logins.latencies.length + logins.failures;
      errors += logins.failures;
      if (slice === 0) {
        snapshot('after-warm-up');
        warmRss = mb();
      }
      console.log(`soak: slice ${slice + 1}/${slices}, rss ${mb()} MB, errors so far ${errors}`);
    }
    snapshot('end');
  } finally {
    clearInterval(sampler);
    await system.close();
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
  const endRss = samples.at(-1)?.rssMb ?? mb();
  const growthPercent = warmRss ? Math.round(((endRss - warmRss) / warmRss) * 1000) / 10 : null;
  return {
    minutes: opts.minutes,
    load: 'whoami (10 connections), /login/config (2 connections), password logins at 5/s; load children on the other core',
    rssMbAfterWarmUp: warmRss,
    rssMbAtEnd: endRss,
    rssMbMax: Math.max(...samples.map((s) => s.rssMb)),
    rssGrowthPercent: growthPercent,
    requests,
    errors,
    pass: growthPercent !== null && growthPercent <= 10 && errors === 0,
    heapSnapshots: snapshots,
    samples,
  };
}
