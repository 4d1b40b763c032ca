// `npm run bench`: every benchmark workload, written as JSON to bench/results/.
// BENCH_DURATION (seconds per workload, default 10), BENCH_CONNECTIONS (default 50),
// BENCH_ONLY (comma-separated subset: ceiling,identity,oauth2,browser,enumeration; `whoami` runs only
// the identity service's whoami workload and is not part of the default set),
// BENCH_ENUM_PAIRS (known/unknown address pairs per entry point, default 1000).
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { benchCeiling } from './ceiling.ts';
import { benchIdentity } from './identity-bench.ts';
import { benchOAuth2 } from './oauth2-bench.ts';
import { benchBrowserSignIn } from './browser-sign-in.ts';
import { benchEnumeration } from './enumeration.ts';

const durationSec = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const only = new Set((process.env.BENCH_ONLY ?? 'ceiling,identity,oauth2,browser,enumeration').split(','));
const opts = { durationSec, connections };

const results: Record<string, unknown> = {
  startedAt: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
  settings: opts,
};

const workloads: [string, () => Promise<unknown>][] = [
  ['ceiling', () => benchCeiling(opts)],
  ['identity', () => benchIdentity(opts)],
  ['whoami', () => benchIdentity({ ...opts, whoamiOnly: true })],
  ['oauth2', () => benchOAuth2(opts)],
  ['browser', () => benchBrowserSignIn({ runs: Number(process.env.BENCH_BROWSER_RUNS ?? 20) })],
  ['enumeration', () => benchEnumeration({ pairs: Number(process.env.BENCH_ENUM_PAIRS ?? 1000) })],
];

for (const [name, run] of workloads) {
  if (!only.has(name)) continue;
  console.log(`▶ ${name}`);
  try {
    results[name] = await run();
  } catch (error) {
    results[name] = { error: error instanceof Error ? error.message : String(error) };
  }
  console.log(JSON.stringify(results[name], null, 2));
}

const dir = join(import.meta.dirname, 'results');
await mkdir(dir, { recursive: true });
const file = join(dir, `bench-${results.startedAt as string}.json`.replaceAll(':', '-'));
await writeFile(file, JSON.stringify(results, null, 2));
await writeFile(join(dir, 'latest.json'), JSON.stringify(results, null, 2));
console.log(`\nWritten to ${file} and bench/results/latest.json`);
process.exit(0);
