// `node --import tsx bench/startup.ts <runtime> [settle seconds] [runs]`: how long the one-process
// system takes to start, and its idle RSS, for one way of running it (ADR 0016):
//   npm       `npm start` itself (the compile step, then the compiled output; npm's own process counted);
//   compiled  the compiled output (scripts/dist/start.js, `--conditions=compiled`; `npm run build` first);
//   strip     the TypeScript sources run by Node's own type stripping (no loader);
//   tsx       the TypeScript sources through tsx (what `npm start` ran before).
// Each run starts the system on its data directory (.data/pglite, initialised by an earlier start),
// reads "System ready" from its output, waits `settle` seconds (default 10), sums the RSS of every
// process in its process group with `ps`, and stops it. V8 flags to try go in BENCH_NODE_FLAGS, e.g.
// BENCH_NODE_FLAGS="--max-semi-space-size=2". BENCH_LOAD_SECONDS=n then puts n seconds of load on
// it (autocannon, 10 connections per URL: whoami without a session, a new API login flow, the
// login page, the discovery document) and samples the RSS again 10, 30 and 60 s after the load.
// Prints one JSON line per run.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';

const root = join(import.meta.dirname, '..');
const runtime = process.argv[2] ?? 'compiled';
const settle = Number(process.argv[3] ?? 10);
const runs = Number(process.argv[4] ?? 1);
// Every process runs without Object.prototype.__proto__, as `npm start` does.
const flags = [DISABLE_PROTO_FLAG, ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)];
const threadpool = ['--import', './packages/service-kit/threadpool.mjs'];

const commands: Record<string, string[]> = {
  npm: ['npm', 'start'],
  compiled: [process.execPath, ...flags, '--conditions=compiled', ...threadpool, 'scripts/dist/start.js'],
  strip: [process.execPath, ...flags, ...threadpool, 'scripts/start.ts'],
  tsx: [process.execPath, ...flags, ...threadpool, '--import', 'tsx', 'scripts/start.ts'],
};
const command = commands[runtime];
if (!command) throw new Error(`runtime: one of ${Object.keys(commands).join(', ')}`);
if (runtime === 'compiled')
  spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: 'inherit' });

/** RSS (MB) of every process in the group, by command. */
function groupRss(pgid: number): { total: number; processes: { rss: number; command: string }[] } {
  const ps = spawnSync('ps', ['-o', 'rss=,args=', '-g', String(pgid)], { encoding: 'utf8' });
  const processes = ps.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [, rss = '0', args = ''] = /^\s*(\d+)\s+(.*)$/.exec(line) ?? [];
      return { rss: Math.round(Number(rss) / 1024), command: args.slice(0, 80) };
    });
  return { total: processes.reduce((sum, p) => sum + p.rss, 0), processes };
}

for (let run = 0; run < runs; run++) {
  const started = Date.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: root,
    detached: true, // its own process group: npm, sh and node are measured and stopped together
    env: { ...process.env, MALLOC_MMAP_THRESHOLD_: '4194304', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('System ready')) resolve(Date.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it was ready:\n${out}`)));
  });
  await new Promise((r) => setTimeout(r, settle * 1000));
  const rss = groupRss(child.pid!);
  const afterLoad = await load(child.pid!);
  const exited = new Promise((r) => child.once('exit', r));
  process.kill(-child.pid!, 'SIGTERM');
  await exited;
  console.log(
    JSON.stringify({
      runtime,
      flags: flags.join(' '),
      readyMs,
      settleS: settle,
      rssMb: rss.total,
      afterLoad,
      rss,
    }),
  );
}

/** BENCH_LOAD_SECONDS of load, then the group's RSS 10, 30 and 60 s after it (MB). */
async function load(pgid: number) {
  const seconds = Number(process.env.BENCH_LOAD_SECONDS ?? 0);
  if (!seconds) return undefined;
  const urls = [
    'http://localhost:4433/sessions/whoami',
    'http://localhost:4433/self-service/login/api',
    'http://localhost:4000/account/login',
    'http://localhost:4444/.well-known/openid-configuration',
  ];
  const results = await Promise.all(
    urls.map((url) =>
      autocannon({ url, connections: 10, duration: seconds, headers: { 'accept-encoding': 'br' } }),
    ),
  );
  const requests = results.reduce((sum, r) => sum + r.requests.total, 0);
  const peak = groupRss(pgid).total;
  const samples: Record<string, number> = {};
  let waited = 0;
  for (const at of [10, 30, 60]) {
    await new Promise((r) => setTimeout(r, (at - waited) * 1000));
    waited = at;
    samples[`${at}s`] = groupRss(pgid).total;
  }
  return { seconds, requests, peakMb: peak, rssMb: samples };
}
