// Tracing's own share of the services' CPU time (issue 33), read from CPU profiles rather than from
// the difference of two copies: one traced copy of the three parts (as bench/tracing-cost.ts starts
// them) runs each workload with every process under `--cpu-prof`; the samples whose function is
// tracing's code, or is called by it, are tracing's work (bench/profile-share.ts). Its time per
// request against the processes' whole CPU time per request (all threads, from /proc) is the share.
// Both come from the same seconds of the same processes, so the machine's speed, which moves the
// crossover's rounds by ±15 %, moves both alike. It is a lower bound: what tracing makes other code
// do (collect the garbage it leaves, publish the channels' messages it subscribes to) is not in it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningCluster } from '@acme/cluster/system';
import { DEMO_PASSWORD } from '@acme/users';
import { cpuSeconds } from './front-door.ts';
import { runLoadChild } from './load/child.ts';
import { profileShare, type CpuProfile, type ProfileFrame } from './profile-share.ts';
import { EMAIL, refreshTokenOf, startSeededCluster } from './seeded-copy.ts';

/** The service kit's tracing modules (compiled), the OpenTelemetry packages and the statements' publisher. */
const TRACING_MODULE =
  /\/packages\/service-kit\/dist\/(tracing|tracing-http|recorded-span|span-export|otlp-protobuf|chained-context)\.js$|\/node_modules\/@opentelemetry\/|\/packages\/db\/dist\/query-channel\.js$/;

/**
 * The wrappers that call the code they wrap: a request's handler (`emitOn`, inside the server span's
 * context) and a statement (the connection's wrapped `query`). What runs below them is the services'.
 */
const PASS_THROUGH: [RegExp, string][] = [
  [/\/tracing-http\.js$/, 'emitOn'],
  [/\/query-channel\.js$/, 'client.query'],
];

const tracingCode = {
  own: (frame: ProfileFrame) => TRACING_MODULE.test(frame.url),
  passThrough: (frame: ProfileFrame) =>
    PASS_THROUGH.some(([url, name]) => frame.functionName === name && url.test(frame.url)),
};

/** Whether any node of the profile is a pass-through wrapper: if none is, their names changed. */
const hasPassThrough = (profile: CpuProfile) =>
  profile.nodes.some((n) => tracingCode.passThrough(n.callFrame));

const CHAINS = 16;
const round1 = (n: number) => Math.round(n * 10) / 10;

interface LoadResult {
  latencies: number[];
  failures: number;
}

/** One workload on a new traced copy: its processes profiled from a restart to their exit. */
async function shareOf(
  workload: 'login' | 'refresh',
  options: { serverUrl: string; sinkUrl: string; warmUpSec: number; durationSec: number },
) {
  const { cluster } = await startSeededCluster(options.serverUrl, {
    OTEL_EXPORTER_OTLP_ENDPOINT: options.sinkUrl,
    OTEL_TRACES_SAMPLER: 'always_on',
  });
  const dir = mkdtempSync(join(tmpdir(), 'tracing-share-'));
  let closed = false;
  try {
    let tokens: string[] = [];
    if (workload === 'refresh')
      for (let i = 0; i < CHAINS; i++) tokens.push(await refreshTokenOf(cluster.urls));
    // Profiled from here (the sign-ins that made the tokens are not the workload).
    for (const part of [...cluster.processes])
      await cluster.restart(part.name, {
        NODE_OPTIONS: `--cpu-prof --cpu-prof-interval=1000 --cpu-prof-dir=${join(dir, part.name)}`,
      });
    const run = async (durationSec: number) => {
      if (workload === 'login') {
        const r = await runLoadChild<LoadResult>('password-logins', {
          publicUrl: cluster.urls.identityPublic.replace('localhost', '127.0.0.1'),
          email: EMAIL,
          password: DEMO_PASSWORD,
          durationSec,
          concurrency: CHAINS,
        });
        if (r.failures > 0) throw new Error(`tracing share: ${r.failures} logins failed`);
        return r.latencies.length;
      }
      const r = await runLoadChild<LoadResult & { tokens: string[] }>('refresh-chains', {
        tokenUrl: `${cluster.urls.oauth2Public.replace('localhost', '127.0.0.1')}/oauth2/token`,
        clientId: 'platform',
        tokens,
        durationSec,
      });
      if (r.failures > 0) throw new Error(`tracing share: ${r.failures} refresh grants failed`);
      tokens = r.tokens;
      return r.latencies.length;
    };
    await run(options.warmUpSec);
    const cpuOf = () => cluster.processes.map((p) => cpuSeconds(p.child.pid!));
    const from = performance.now();
    const cpuBefore = cpuOf();
    const requests = await run(options.durationSec);
    const cpuAfter = cpuOf();
    const to = performance.now();
    const exits = await closeAndTimeExits(cluster);
    closed = true;
    const parts = cluster.processes.map((p, i) => {
      const profile = onlyProfile(join(dir, p.name));
      if (!hasPassThrough(profile))
        throw new Error(`tracing share: no pass-through frame in ${p.name}'s profile (renamed?)`);
      // The profile's clock, read back from the process's exit (its profile stops as it exits).
      const exitAt = exits.get(p.name)!;
      const share = profileShare(
        profile,
        tracingCode,
        profile.endTime - (exitAt - from) * 1000,
        profile.endTime - (exitAt - to) * 1000,
      );
      const cpuUs = (cpuAfter[i]! - cpuBefore[i]!) * 1e6;
      return { name: p.name, tracingUs: share.ownUs, cpuUs };
    });
    const tracingUs = parts.reduce((sum, p) => sum + p.tracingUs, 0);
    const cpuUs = parts.reduce((sum, p) => sum + p.cpuUs, 0);
    return {
      requests,
      tracingUsPerRequest: round1(tracingUs / requests),
      cpuUsPerRequest: round1(cpuUs / requests),
      sharePercent: round1((tracingUs / cpuUs) * 100),
      perPart: Object.fromEntries(
        parts.map((p) => [
          p.name,
          {
            tracingUsPerRequest: round1(p.tracingUs / requests),
            sharePercent: round1((p.tracingUs / p.cpuUs) * 100),
          },
        ]),
      ),
    };
  } finally {
    if (!closed) await cluster.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Stops the copy, answering when (this process's clock) each of its processes exited. */
async function closeAndTimeExits(cluster: RunningCluster): Promise<Map<string, number>> {
  const exits = new Map<string, number>();
  const exited = cluster.processes.map(
    (p) =>
      new Promise<void>((resolve) =>
        p.child.once('exit', () => resolve(void exits.set(p.name, performance.now()))),
      ),
  );
  await cluster.close();
  await Promise.all(exited);
  return exits;
}

function onlyProfile(dir: string): CpuProfile {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length !== 1) throw new Error(`tracing share: ${files.length} profiles in ${dir}`);
  return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as CpuProfile;
}

export async function benchTracingShare(options: {
  serverUrl: string;
  sinkUrl: string;
  durationSec: number;
}) {
  const settings = { ...options, warmUpSec: 20, durationSec: Math.max(10, options.durationSec * 4) };
  return {
    passwordLogin: await shareOf('login', settings),
    refresh: await shareOf('refresh', settings),
    warmUpSec: settings.warmUpSec,
    windowSec: settings.durationSec,
  };
}
