// `BENCH_ONLY=tracing npm run bench`: what OpenTelemetry tracing costs (issue 33). Four copies of
// the identity service, the authorization server and the user service, each part its own process
// (the compiled entry points, as the image runs them) on one throwaway PostgreSQL server, a
// database per copy, in four settings: tracing every request (`on`: OTEL_EXPORTER_OTLP_ENDPOINT at
// a local sink that reads and discards what it is sent, OTEL_TRACES_SAMPLER=always_on), tracing
// every request without statement spans (`noStatements`: OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg,
// what an operator can choose), and twice without (`off` and `control`: the SDK not even loaded).
// The copies take the settings in turn, one period each (a crossover: see below). Password logins
// (create flow + submit, argon2id) and refresh grants (rotation, the authorization server asking
// the user service for the claims) run against each copy in turn, in interleaved rounds whose order
// rotates: under load (16 at once: throughput) and one at a time (one user's wait: latency).
// Reports each setting's median rate, latency and CPU time per request, and the costs: the median
// over rounds of 1 − on / off (rate), on / off − 1 (CPU and median latency), each with the 90 %
// interval of that median (this two-core machine's rounds vary by ±15 %; more rounds narrow it);
// the same for the setting without statement spans, and for `control` against `off`: the noise
// floor of the run. Goal: ≤ 5 %. Then tracing's own share of a traced copy's CPU time, read from
// CPU profiles (tracing-share.ts), which the machine's speed moves far less, and the unit costs
// (tracing-unit-costs.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningCluster } from '@acme/cluster/system';
import { DEMO_PASSWORD } from '@acme/users';
import { startCluster } from '@acme/cluster/postgres';
import { cpuSeconds } from './front-door.ts';
import { runLoadChild } from './load/child.ts';
import { benchTracingUnitCosts } from './tracing-unit-costs.ts';
import { benchTracingShare } from './tracing-share.ts';
import { medianInterval } from './median.ts';
import { EMAIL, refreshTokenOf, startSeededCluster } from './seeded-copy.ts';

/**
 * Tracing on; off; off again, a second copy: the control, whose difference from off is the noise;
 * and tracing on without the statements' instrumentation.
 */
type SideName = 'on' | 'off' | 'control' | 'noStatements';
const SIDES: SideName[] = ['on', 'off', 'control', 'noStatements'];
/** One copy of the three parts, and the setting it runs in the current period. */
interface Side {
  name: SideName;
  cluster: RunningCluster;
  /** The refresh chains' latest tokens. */
  tokens: string[];
}
interface LoadResult {
  latencies: number[];
  failures: number;
  elapsedSec: number;
}

const CHAINS = 16;

/** An OTLP/HTTP endpoint that reads every export and answers 200 (an empty protobuf response). */
async function startSink(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Each side's tracing settings (empty values: tracing off, the SDK not loaded). */
function tracingOf(name: SideName, sinkUrl: string): Record<string, string> {
  if (name === 'on')
    return {
      OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_NODE_DISABLED_INSTRUMENTATIONS: '',
    };
  if (name === 'noStatements')
    return {
      OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
      OTEL_TRACES_SAMPLER: 'always_on',
      OTEL_NODE_DISABLED_INSTRUMENTATIONS: 'pg',
    };
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: '',
    OTEL_TRACES_SAMPLER: '',
    OTEL_NODE_DISABLED_INSTRUMENTATIONS: '',
  };
}

async function startSide(name: SideName, serverUrl: string, sinkUrl: string): Promise<Side> {
  const { cluster } = await startSeededCluster(serverUrl, tracingOf(name, sinkUrl));
  const tokens: string[] = [];
  for (let i = 0; i < CHAINS; i++) tokens.push(await refreshTokenOf(cluster.urls));
  return { name, cluster, tokens };
}

/** The copy's processes restarted in `name`'s setting (its database and tokens kept). */
async function switchSide(side: Side, name: SideName, sinkUrl: string): Promise<void> {
  if (side.name === name) return;
  for (const part of [...side.cluster.processes])
    await side.cluster.restart(part.name, tracingOf(name, sinkUrl));
  side.name = name;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round1 = (n: number) => Math.round(n * 10) / 10;
/** A record of one empty list per side. */
const perSide = (): Record<SideName, number[]> => ({ on: [], off: [], control: [], noStatements: [] });

export async function benchTracingCost(options: {
  durationSec: number;
  connections: number;
  rounds: number;
}) {
  const postgres = await startCluster();
  const sink = await startSink();
  const sides: Side[] = [];
  try {
    for (const name of SIDES) sides.push(await startSide(name, postgres.url, sink.url));
    // A crossover: each of the four periods gives each copy another setting (copy i runs setting
    // i + period), so that every setting runs on every copy for as many rounds. A copy slower than
    // the others for reasons of its own (its database's place on disk, its processes' memory) then
    // weighs on every setting alike instead of on one: in runs where each copy kept its setting, the
    // two untraced copies read up to 20 % apart.
    const periods = SIDES.length;
    const roundsPerPeriod = Math.max(1, Math.ceil(options.rounds / periods));
    const concurrency = Math.max(1, Math.min(options.connections, 16));
    const logins = async (side: Side, durationSec: number, inFlight: number) => {
      const r = await runLoadChild<LoadResult>('password-logins', {
        publicUrl: side.cluster.urls.identityPublic.replace('localhost', '127.0.0.1'),
        email: EMAIL,
        password: DEMO_PASSWORD,
        durationSec,
        concurrency: inFlight,
      });
      if (r.failures > 0) throw new Error(`${r.failures} logins failed (tracing ${side.name})`);
      return r;
    };
    // `chains` of the side's refresh chains, each sequential (one grant at a time per chain).
    const refreshes = async (side: Side, durationSec: number, chains: number) => {
      const r = await runLoadChild<LoadResult & { tokens: string[] }>('refresh-chains', {
        tokenUrl: `${side.cluster.urls.oauth2Public.replace('localhost', '127.0.0.1')}/oauth2/token`,
        clientId: 'platform',
        tokens: side.tokens.slice(0, chains),
        durationSec,
      });
      if (r.failures > 0) throw new Error(`${r.failures} refresh grants failed (tracing ${side.name})`);
      side.tokens.splice(0, r.tokens.length, ...r.tokens);
      return r;
    };
    const workloads = {
      login: (side: Side, durationSec: number) => logins(side, durationSec, concurrency),
      refresh: (side: Side, durationSec: number) => refreshes(side, durationSec, CHAINS),
      loginAlone: (side: Side, durationSec: number) => logins(side, durationSec, 1),
      refreshAlone: (side: Side, durationSec: number) => refreshes(side, durationSec, 1),
    };
    type Workload = keyof typeof workloads;
    const perWorkload = () =>
      Object.fromEntries(Object.keys(workloads).map((w) => [w, perSide()])) as Record<
        Workload,
        Record<SideName, number[]>
      >;
    const rates = perWorkload();
    const latencies = perWorkload();
    // Each round's median latency per side, for the latency cost's per-round ratios.
    const roundLatencies = perWorkload();
    // CPU milliseconds the side's processes spent per request: the cost in work, which the
    // machine's other load disturbs less than the rates.
    const cpuMs = perWorkload();
    const cpuOf = (side: Side) =>
      side.cluster.processes.reduce((sum, p) => sum + cpuSeconds(p.child.pid!), 0);
    let exportsDuringRounds = 0;
    for (let round = 0; round < periods * roundsPerPeriod; round++) {
      if (round % roundsPerPeriod === 0) {
        const period = round / roundsPerPeriod;
        for (const [i, side] of sides.entries())
          await switchSide(side, SIDES[(i + period) % periods]!, sink.url);
        // Warm-up of every copy (JIT, the hashing pool, the connection pools), not reported.
        for (const side of sides)
          for (const run of Object.values(workloads)) await run(side, Math.min(3, options.durationSec));
      }
      const exportsBefore = sink.requests();
      for (const [workload, run] of Object.entries(workloads) as [Workload, (typeof workloads)[Workload]][]) {
        // Each round starts with another side, so that no side always follows the same one.
        for (const side of sides.map((_, i) => sides[(i + round) % sides.length]!)) {
          const cpuBefore = cpuOf(side);
          const r = await run(side, options.durationSec);
          cpuMs[workload][side.name].push(
            ((cpuOf(side) - cpuBefore) * 1000) / Math.max(1, r.latencies.length),
          );
          rates[workload][side.name].push(r.latencies.length / r.elapsedSec);
          latencies[workload][side.name].push(...r.latencies);
          roundLatencies[workload][side.name].push(median(r.latencies));
        }
      }
      exportsDuringRounds += sink.requests() - exportsBefore;
    }
    // Each round's runs are adjacent in time: the median of their ratios is robust to the machine's
    // load changing between rounds.
    const costs = (workload: Workload, side: SideName) => {
      const rate = rates[workload][side].map((r, i) => (1 - r / rates[workload].off[i]!) * 100);
      const cpu = cpuMs[workload][side].map((c, i) => (c / cpuMs[workload].off[i]! - 1) * 100);
      const latency = roundLatencies[workload][side].map(
        (l, i) => (l / roundLatencies[workload].off[i]! - 1) * 100,
      );
      return {
        costPercent: round1(median(rate)),
        costPercentInterval90: medianInterval(rate).map(round1),
        cpuCostPercent: round1(median(cpu)),
        cpuCostPercentInterval90: medianInterval(cpu).map(round1),
        latencyCostPercent: round1(median(latency)),
        latencyCostPercentInterval90: medianInterval(latency).map(round1),
      };
    };
    const figures = (workload: Workload) => {
      const on = rates[workload].on;
      const off = rates[workload].off;
      return {
        perSecOn: round1(median(on)),
        perSecOff: round1(median(off)),
        medianMsOn: round1(median(latencies[workload].on)),
        medianMsOff: round1(median(latencies[workload].off)),
        ...costs(workload, 'on'),
        cpuMsPerRequestOn: round1(median(cpuMs[workload].on)),
        cpuMsPerRequestOff: round1(median(cpuMs[workload].off)),
        // The same figures for the second untraced copy against the first: what the cost would read
        // if tracing cost nothing (an A/A comparison of this run).
        control: costs(workload, 'control'),
        // And for every request traced without statement spans (OTEL_NODE_DISABLED_INSTRUMENTATIONS=pg).
        noStatements: costs(workload, 'noStatements'),
        perRound: Object.fromEntries(SIDES.map((side) => [side, rates[workload][side].map(round1)])),
      };
    };
    return {
      passwordLogin: figures('login'),
      refresh: figures('refresh'),
      // One at a time: one user's wait (latency), the machine otherwise idle.
      passwordLoginAlone: figures('loginAlone'),
      refreshAlone: figures('refreshAlone'),
      exportRequestsDuringRounds: exportsDuringRounds,
      // Tracing's own work in the services' CPU time, from profiles of one traced copy (tracing-share.ts).
      ownShare: await benchTracingShare({
        serverUrl: postgres.url,
        sinkUrl: sink.url,
        durationSec: options.durationSec,
      }),
      // The terms of that sum: per traced incoming request, outgoing call and statement span.
      unitCosts: await benchTracingUnitCosts({
        rounds: Math.min(options.rounds, 5),
        durationSec: Math.min(options.durationSec, 3),
        sinkUrl: sink.url,
      }),
      concurrency: { logins: concurrency, refreshChains: CHAINS, alone: 1 },
      // (Not `rounds`: the bench's runner writes its own count of runs there.)
      crossoverRounds: periods * roundsPerPeriod,
      // Each copy ran each setting for a quarter of the rounds (see the crossover above).
      periods,
      goal: 'cost ≤ 5 % of throughput, tracing on (always_on, exported) against off',
    };
  } finally {
    for (const side of sides) await side.cluster.close();
    await sink.close();
    postgres.stop();
  }
}
