// `npm test`: every check the project has, as stages run side by side (one more than the cores by default),
// each stage's output printed whole when it ends, and a summary at the end.
// Runs under Node 24 (node_modules/.bin/node, put on PATH by npm).
import { spawn, spawnSync } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { engine } from './containers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
/** `apt-get update`, once per run however many packages are installed after it. */
let aptUpdated = false;
const aptUpdate = () =>
  aptUpdated ||
  (aptUpdated = spawnSync('sh', ['-c', 'apt-get update -qq'], { stdio: 'inherit' }).status === 0);
const aptInstall = (packages) =>
  spawnSync('sh', ['-c', `DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages} >/dev/null`], {
    stdio: 'inherit',
  }).status === 0;
/** Whether `present()`; else, as root with apt-get, installs Debian's `packages` (saying `why`) and asks again. */
function aptProvides(why, packages, present) {
  if (present()) return true;
  if (process.getuid?.() !== 0 || !has('apt-get')) return false;
  console.log(why);
  return aptUpdate() && aptInstall(packages) && present();
}

// Debian's Chromium for the browser journeys, and its headless shell (the same build without the
// full browser's compositing: about half the CPU time; e2e/browser.ts uses it when installed).
function ensureChromium() {
  // CHROMIUM_PATH (which e2e/browser.ts honours) names a browser of the caller's choice.
  if (process.env.CHROMIUM_PATH) return existsSync(process.env.CHROMIUM_PATH);
  const shell = existsSync('/usr/bin/chromium-headless-shell');
  if (existsSync('/usr/bin/chromium') && shell) return true;
  if (process.getuid?.() !== 0) return existsSync('/usr/bin/chromium') || shell;
  console.log('Installing Debian Chromium (and its headless shell) for the browser tests…');
  if (!aptUpdate()) return false;
  // The shell is optional (an older Debian lacks the package): the full browser runs the journeys too.
  if (!shell) aptInstall('chromium-headless-shell');
  return existsSync('/usr/bin/chromium') || aptInstall('chromium');
}

// Debian's nginx: the load balancer of the scaled-out system (the cluster journeys, the tests of
// packages/cluster and of the services behind it), and the check of docker/nginx.conf.
const hasNginx = () => has('nginx') || existsSync('/usr/sbin/nginx');
const ensureNginx = () =>
  aptProvides(
    'Installing nginx (the load balancer of the cluster and its tests)…',
    'nginx-light openssl',
    () => hasNginx() && has('openssl'),
  );

// Debian's Prometheus: the PostgreSQL stage's test that a real Prometheus scrapes every process of the
// cluster (dev/test/cluster/prometheus.pg.int.test.ts runs /usr/bin/prometheus). Its package's service
// is not started by the install where no init system runs (policy-rc.d in containers).
const PROMETHEUS = '/usr/bin/prometheus';
const ensurePrometheus = () =>
  aptProvides(
    'Installing Prometheus (it scrapes the cluster in one PostgreSQL-stage test)…',
    'prometheus',
    () => existsSync(PROMETHEUS),
  );

// podman (installed and configured as root on Debian, scripts/containers.mjs) for the production
// stage. Where it cannot be had, the stage fails and says why, once, loudly.
let engineMissing = 'podman';
function ensurePodman() {
  try {
    return engine().podman;
  } catch (err) {
    engineMissing = err.message;
    console.log(`\n!!! The production stage cannot run: ${err.message}\n`);
    return false;
  }
}

// `nginx -t` on docker/nginx.conf (generated from packages/cluster/src/nginx.ts, whose test also
// checks it is not stale), copied into a scratch prefix with a throwaway certificate where the
// configuration expects its own (tls/ next to it).
const nginxCheck = [
  'set -e',
  'd=$(mktemp -d)',
  'trap \'rm -rf "$d"\' EXIT',
  'cp docker/nginx.conf "$d/nginx.conf"',
  'mkdir "$d/tls"',
  'openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=nginx-check -days 1 -keyout "$d/tls/privkey.pem" -out "$d/tls/fullchain.pem" 2>/dev/null',
  // Into a file, shown afterwards: the configuration opens /dev/stdout, which cannot be opened when
  // it is the socket a stage's output is collected through (ENXIO).
  'status=0',
  'PATH="$PATH:/usr/sbin"',
  'nginx -t -q -p "$d" -c "$d/nginx.conf" -e stderr >"$d/out" 2>&1 || status=$?',
  'cat "$d/out"',
  'exit $status',
].join('\n');

// The stages. `id` names a stage on the command line (`npm test -- e2e postgres` runs those alone);
// `after` lists the stages it must wait for when they run too: the builds come before what starts
// the built system, so that no two stages compile the same files at once.
// PostgreSQL's server binaries for the PostgreSQL stage and the cluster's: on PATH, else Debian's
// /usr/lib/postgresql/<version>/bin (the newest, then put on PATH for every stage), else installed with
// apt-get (Debian's `postgresql`) when running as root.
function findPostgres() {
  if (has('initdb') && has('pg_ctl')) return true;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) return false;
  process.env.PATH = `${join(base, versions[0], 'bin')}:${process.env.PATH}`;
  return true;
}
const ensurePostgres = () =>
  aptProvides(
    'Installing PostgreSQL (its initdb and pg_ctl start the throwaway clusters of the tests)…',
    'postgresql',
    findPostgres,
  );
const vitest = (...args) => [bin('vitest'), 'run', ...args];
const e2e = ['--config', 'e2e/vitest.config.ts'];

// Each journey stage runs in a network namespace of its own (as root, with util-linux's `unshare` and
// iproute2's `ip`): its system, its stand-ins and its Chromium on a loopback no other stage shares.
// podman making and removing pods then no longer changes the network those browsers see (Chromium fails
// a page load at that moment with ERR_NETWORK_CHANGED), so the production stage runs beside the
// journeys instead of after them, and two journey stages may use the same ports. Without it, the
// stages that would collide run one after another.
const ip = ['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].find((p) => existsSync(p));
const ownNetwork =
  process.getuid?.() === 0 &&
  ip !== undefined &&
  spawnSync('unshare', ['--net', 'true'], { stdio: 'ignore' }).status === 0;
const inOwnNetwork = (argv) =>
  ownNetwork ? ['unshare', '--net', 'sh', '-c', `${ip} link set lo up && exec "$@"`, 'sh', ...argv] : argv;
const afterJourneys = ownNetwork ? [] : ['e2e', 'e2e-app', 'e2e-cluster'];
const stages = [
  // Compiles what is stale (the journeys' global set-up and a few integration tests run it too):
  // here once, before the stages that would otherwise each compile the same files concurrently.
  { id: 'compile', name: 'compile services and scripts', cmd: ['node', join(root, 'scripts/build.mjs')] },
  {
    id: 'build',
    name: 'build the account app',
    cmd: [bin('vite'), 'build', '--logLevel', 'warn'],
    cwd: 'apps/account',
  },
  {
    id: 'size',
    name: 'bundle budget (size-limit)',
    cmd: [bin('size-limit')],
    cwd: 'apps/account',
    after: ['build'],
  },
  // The journeys (but the app-only files, e2e/vitest.config.ts) against the scaled-out system of
  // `npm run start:cluster`: what must hold whichever instance answers (sessions, flows, limits in
  // the database) is checked in a browser.
  // The longest stage that keeps one core busy: started first.
  {
    id: 'e2e-cluster',
    name: 'end-to-end journeys against the cluster (2 instances each, PostgreSQL)',
    cmd: vitest(...e2e),
    env: {
      E2E_TARGET: 'cluster',
      E2E_PORT_OFFSET: process.env.E2E_CLUSTER_PORT_OFFSET ?? '20000',
      TEST_PORT_SLOT: '3',
    },
    after: ['compile', 'build'],
    needs: ['chromium', 'nginx', 'postgres'],
    journey: true,
  },
  // The journeys on one process: mostly waiting on a browser, so they run beside everything else.
  {
    id: 'e2e',
    name: 'end-to-end journeys in Chromium',
    cmd: vitest(...e2e),
    env: {
      E2E_TARGET: 'process',
      E2E_PART: 'journeys',
      E2E_PORT_OFFSET: process.env.E2E_PORT_OFFSET ?? '10000',
      TEST_PORT_SLOT: '2',
    },
    after: ['compile', 'build'],
    needs: ['chromium'],
    journey: true,
  },
  // The files about the app's screens (every screen's layout and axe, in two languages), on a system
  // of their own: beside the journeys in a network of its own, else after them on the same ports.
  {
    id: 'e2e-app',
    name: "end-to-end: the app's screens (layouts, axe) in Chromium",
    cmd: vitest(...e2e),
    env: {
      E2E_TARGET: 'process',
      E2E_PART: 'app',
      E2E_PORT_OFFSET: process.env.E2E_PORT_OFFSET ?? '10000',
      TEST_PORT_SLOT: '5',
    },
    after: ownNetwork ? ['compile', 'build'] : ['compile', 'build', 'e2e'],
    needs: ['chromium'],
    journey: true,
  },
  // The longest of the stages that fill the cores: started first.
  {
    id: 'postgres',
    name: 'integration suites on a throwaway PostgreSQL cluster',
    cmd: vitest(),
    env: { TEST_DB: 'postgres', TEST_PORT_SLOT: '1' },
    after: ['compile'],
    needs: ['nginx', 'postgres', 'prometheus'],
  },
  {
    id: 'vitest',
    name: 'unit and integration tests on PGlite',
    cmd: vitest(),
    // Each stage's own slice of ports for the servers its tests start (@acme/cluster/free-ports).
    env: { TEST_PORT_SLOT: '0' },
    after: ['compile'],
    needs: ['nginx'],
  },
  { id: 'lint', name: 'lint', cmd: [bin('eslint'), '.', '--max-warnings=0'], background: true },
  {
    id: 'format',
    name: 'format',
    cmd: [bin('prettier'), '--check', '--log-level=warn', '.'],
    background: true,
  },
  // Unused files, exports and dependencies, and imports of undeclared packages (knip.json).
  {
    id: 'knip',
    name: 'unused code and dependencies (knip)',
    cmd: [bin('knip'), '--no-progress'],
    background: true,
  },
  // Duplicated blocks: 10 lines or more in source files outside tests (.jscpd.json), 20 lines or
  // more in the tests, their helpers and the journeys (.jscpd.tests.json).
  {
    id: 'jscpd',
    name: 'duplicate code (jscpd; tests at 20 lines)',
    cmd: [
      'sh',
      '-c',
      `"${bin('jscpd')}" --silent . && "${bin('jscpd')}" --silent --config .jscpd.tests.json .`,
    ],
    background: true,
  },
  {
    id: 'typecheck',
    name: 'typecheck (services, packages, tools)',
    cmd: [bin('tsc'), '-p', 'tsconfig.json'],
    background: true,
  },
  {
    id: 'typecheck-app',
    name: 'typecheck (account app)',
    cmd: [bin('tsc'), '-p', 'apps/account/tsconfig.json'],
    background: true,
  },
  {
    id: 'nginx',
    name: 'load balancer configuration (nginx -t)',
    cmd: ['sh', '-c', nginxCheck],
    needs: ['nginx'],
  },
  // The images built from the output of the compile and build stages (`npm run image -- --built`:
  // no npm ci inside the build), their size, contents and refusals checked, then the Kubernetes
  // manifests played by `npm run deploy:local` and a browser signing in through them (deploy/test/).
  {
    id: 'production',
    name: 'production images and the manifests played (podman)',
    cmd: [
      'sh',
      '-c',
      `node scripts/image.mjs --built && ${bin('vitest')} run --config deploy/vitest.config.ts`,
    ],
    env: { DEPLOY_PORT_OFFSET: process.env.DEPLOY_PORT_OFFSET ?? '0', TEST_PORT_SLOT: '4' },
    // Beside the journeys when they each have a network of their own, else after them: podman making
    // and removing its pods changes the host's network, which Chromium reports to a page loading at
    // that moment as net::ERR_NETWORK_CHANGED (a journey failed so in a fresh-clone run).
    after: ['compile', 'build', ...afterJourneys],
    needs: ['podman', 'chromium'],
    // About 55-65 CPU-seconds over three minutes (measured here: the image build 16-26, the
    // containers 27-31, the browser and the tests the rest): it waits on podman and the pods, so it runs
    // beside the three lanes instead of taking one.
    beside: true,
  },
];
// `npm test -- <id>…` runs only those stages (their `after` stages only when named too).
const wanted = process.argv.slice(2);
const unknown = wanted.filter((id) => !stages.some((s) => s.id === id));
if (unknown.length > 0) {
  console.error(`Unknown stage(s): ${unknown.join(', ')}. Stages: ${stages.map((s) => s.id).join(', ')}.`);
  process.exit(2);
}
const selected = wanted.length > 0 ? stages.filter((s) => wanted.includes(s.id)) : stages;

// How many lanes of stages run at once: one more than the cores by default (TEST_CONCURRENCY overrides;
// 1 runs the stages one after another). A journey stage takes a third of a lane: each keeps about a
// quarter of a core busy (measured: 187 CPU-s in 748 s on one process, 137 in 463 s on the cluster; the
// rest is waiting on a browser, timers and the database), so the three start together from the
// beginning while two lanes take the static checks and the Vitest runs, which fill the cores.
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY) || availableParallelism() + 1);

// What each need is, and what to install where it is missing.
const NEEDS = {
  chromium: {
    check: ensureChromium,
    what: 'Chromium, for the browser journeys',
    install: 'apt-get install chromium chromium-headless-shell (or set CHROMIUM_PATH to a Chromium)',
  },
  nginx: {
    check: ensureNginx,
    what: "nginx and openssl, the cluster's front door",
    install: 'apt-get install nginx-light openssl',
  },
  postgres: {
    check: ensurePostgres,
    what: "PostgreSQL's initdb and pg_ctl, for the throwaway clusters",
    install: 'apt-get install postgresql (or put its bin/ on PATH)',
  },
  prometheus: {
    check: ensurePrometheus,
    what: 'Prometheus (/usr/bin/prometheus), which scrapes the cluster in one PostgreSQL-stage test',
    install: 'apt-get install prometheus',
  },
  podman: { check: ensurePodman, what: 'a container engine, for the production images', install: '' },
};
// Found where they are, installed (apt-get) only when running as root, before anything runs and one
// after the other: never two package managers at once. What is still missing is said once, here.
const missing = {};
for (const need of new Set(selected.flatMap((s) => s.needs ?? []))) {
  if (!NEEDS[need].check())
    missing[need] = need === 'podman' ? engineMissing : `${NEEDS[need].what}: ${NEEDS[need].install}`;
}
// Every integration suite runs once on PostgreSQL when that stage runs; the PGlite stage then keeps its
// unit tests and the suites about the embedded system (vitest.config.ts, TEST_INTEGRATION).
const postgresStage = selected.find((s) => s.id === 'postgres');
if (postgresStage && postgresStage.needs.every((need) => !missing[need])) {
  const pglite = stages.find((s) => s.id === 'vitest');
  pglite.env = { ...pglite.env, TEST_INTEGRATION: 'postgres' };
  pglite.name = 'unit tests and the embedded-database suites on PGlite';
}
// Under CI a missing need fails the run; on a laptop the stages that can run do, and the summary says
// which did not.
const ci = Boolean(process.env.CI) && process.env.CI !== 'false';
if (Object.keys(missing).length > 0) {
  const lacking = (need) => selected.filter((s) => (s.needs ?? []).includes(need)).map((s) => s.id);
  console.log(
    [
      '',
      '!!! Not found on this machine (installed with apt-get only when running as root on Debian):',
      ...Object.entries(missing).map(
        ([need, why]) => `!!!   ${why} — needed by: ${lacking(need).join(', ')}`,
      ),
      ci
        ? '!!! CI is set: those stages fail.'
        : '!!! Those stages are not run; the summary lists them. Install what is named to run them.',
      '',
    ].join('\n'),
  );
}

// Each Vitest stage also writes a JSON report, so that the summary can name every failed test: a
// failure scrolled past in a long CI log is otherwise hard to find.
const reports = mkdtempSync(join(tmpdir(), 'acme-test-'));
const failedTests = [];
// Journeys that failed once and passed when run again (Vitest's `(retry x1)`, e2e/vitest.config.ts):
// listed at the end of the run with why their first try failed (Vitest keeps that error in the
// report of a test that passed on its second), so that a flaky journey is seen, not hidden by its
// second try, and the log says what to look into.
const retriedTests = [];
const RETRIED = /(?:✓|√)\s+(.*?)\s+\d+ms\s+\(retry x\d+\)|(?:✓|√)\s+(.*?\(retry x\d+\).*)/;
/** From the stage's output, where it has no JSON report (a Vitest run inside a shell command). */
function readRetriesFromOutput(output) {
  for (const line of stripVTControlCharacters(output).split('\n')) {
    if (!line.includes('(retry x')) continue;
    const match = RETRIED.exec(line);
    retriedTests.push((match?.[1] ?? match?.[2] ?? line).trim());
  }
}
// The first lines of a failure's message, indented under its name: the CI log's tail (often all
// that is kept of a run) then says why each test failed, not only which.
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
function firstLines(messages) {
  const lines = String(messages?.[0] ?? '')
    .replace(ANSI, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .slice(0, 4);
  return lines.map((line) => `\n      ${line.slice(0, 300)}`).join('');
}
/**
 * What the stage's JSON report says: when the stage failed, its failed tests (or a file that failed
 * to run); always, the tests that passed on a second try, with their first try's failure. Without a
 * report (a Vitest run inside a shell command), the retries come from the output.
 */
function readReport(file, failed, output) {
  if (!existsSync(file)) return readRetriesFromOutput(output);
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const suite of report.testResults ?? []) {
      const where = relative(root, suite.name);
      const tests = suite.assertionResults ?? [];
      for (const t of tests) {
        if (t.status === 'passed' && t.failureMessages?.length > 0)
          retriedTests.push(`${where} > ${t.fullName}${firstLines(t.failureMessages)}`);
        if (failed && t.status === 'failed')
          failedTests.push(`${where} > ${t.fullName}${firstLines(t.failureMessages)}`);
      }
      if (failed && suite.status === 'failed' && !tests.some((t) => t.status === 'failed'))
        failedTests.push(`${where}: ${String(suite.message ?? 'the file failed to run').split('\n')[0]}`);
    }
  } catch {
    if (failed) failedTests.push(`(could not read ${file})`);
    readRetriesFromOutput(output);
  }
}

// Output is buffered per stage and printed whole when the stage ends, so that the log reads stage by
// stage although they run at the same time. Colours stay when the run itself writes to a terminal.
const color = process.stdout.isTTY ? { FORCE_COLOR: '1' } : {};
// Node's on-disk code cache for the modules every process loads (Vitest starts a process per test
// file, each loading the same packages): about 5 % less CPU in the Vitest stages. Keyed by file
// content and Node version; under node_modules, so that `npm ci` starts it afresh.
const compileCache = {
  NODE_COMPILE_CACHE:
    process.env.NODE_COMPILE_CACHE ?? join(root, 'node_modules', '.cache', 'node-compile-cache'),
};
// `times` prints the shell's own user and system time, then its children's, as `1m2.5s 0m3.0s`.
function cpuSeconds(text) {
  const lines = text.trim().split('\n');
  if (lines.length < 2) return undefined;
  const seconds = [...lines[1].matchAll(/(\d+)m([\d.]+)s/g)].map(([, m, s]) => Number(m) * 60 + Number(s));
  return seconds.length === 2 ? seconds[0] + seconds[1] : undefined;
}
// The static checks have no clock in them, while the journeys and the integration suites wait on
// time-outs (a browser's, a provider's): the checks run at a lower priority (nice 10), so that on a
// busy machine they take what CPU is left rather than delaying a sign-in past its time-out.
const atLowPriority = (argv) => ['nice', '-n', '10', ...argv];

function runStage(stage, index) {
  const report = join(reports, `stage-${index}.json`);
  const [program, ...originalArgs] = stage.cmd;
  const [cmd, ...args] = (stage.journey ? inOwnNetwork : stage.background ? atLowPriority : (argv) => argv)([
    program === 'node' ? process.execPath : program,
    ...(program === bin('vitest')
      ? [...originalArgs, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]
      : originalArgs),
  ]);
  const started = Date.now();
  const chunks = [];
  const times = [];
  return new Promise((resolveStage) => {
    // Through a shell whose `times` (to a pipe of its own) gives the CPU seconds of the stage's
    // processes once they have ended: where the run's time goes, and what a change saves, whatever
    // else the machine was doing. Daemons the stage starts (PostgreSQL's server, podman's
    // containers) are not its children and are not counted.
    const child = spawn('sh', ['-c', '"$@"; rc=$?; times >&3; exit $rc', 'sh', cmd, ...args], {
      cwd: join(root, stage.cwd ?? '.'),
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, ...color, ...compileCache, ...stage.env },
    });
    child.stdout.on('data', (c) => chunks.push(c));
    child.stderr.on('data', (c) => chunks.push(c));
    child.stdio[3].on('data', (c) => times.push(c));
    const finish = (status) => {
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      const cpu = cpuSeconds(Buffer.concat(times).toString());
      const spent = cpu === undefined ? `${secs}s` : `${secs}s, ${cpu.toFixed(0)} CPU-s`;
      readReport(report, status !== 0, Buffer.concat(chunks).toString());
      const outcome = status === 0 ? `ok (${spent})` : `FAILED (exit ${status}, ${spent})`;
      process.stdout.write(`\n▶ ${stage.name}: ${outcome}\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolveStage(outcome);
    };
    child.once('error', (err) => {
      chunks.push(Buffer.from(`${err.message}\n`));
      finish('error');
    });
    child.once('close', (code, signal) => finish(code ?? signal));
  });
}

const lane = (stage) => (stage.beside ? 0 : stage.journey && concurrency > 1 ? 1 / 3 : 1);
const runStarted = Date.now();
const outcomes = new Map();
const running = new Set();
await new Promise((allDone) => {
  const startReady = () => {
    for (const [index, stage] of selected.entries()) {
      // A stage takes a lane, a journey stage a third of one, and a stage that runs `beside` the others
      // (mostly waiting) none.
      const used = [...running].reduce((sum, id) => sum + lane(stages.find((s) => s.id === id)), 0);
      if (lane(stage) > 0 && used + lane(stage) > concurrency + 1e-9) continue;
      if (outcomes.has(stage.id) || running.has(stage.id)) continue;
      const waitsFor = (stage.after ?? []).filter((id) => selected.some((s) => s.id === id));
      if (!waitsFor.every((id) => outcomes.has(id))) continue;
      const lacking = (stage.needs ?? []).filter((need) => missing[need]);
      if (lacking.length > 0) {
        outcomes.set(stage.id, `${ci ? 'FAILED' : 'NOT RUN'} (missing: ${lacking.join(', ')})`);
        continue;
      }
      running.add(stage.id);
      console.log(`… ${stage.name}`);
      void runStage(stage, index).then((outcome) => {
        running.delete(stage.id);
        outcomes.set(stage.id, outcome);
        startReady();
      });
    }
    if (running.size === 0 && outcomes.size === selected.length) allDone();
  };
  startReady();
});

const total = ((Date.now() - runStarted) / 1000).toFixed(1);
console.log(`\nSummary (${total}s, up to ${concurrency} stage(s) at a time)`);
for (const stage of selected) {
  const outcome = outcomes.get(stage.id);
  const mark = outcome.startsWith('ok') ? '✓' : outcome.startsWith('NOT RUN') ? '–' : '✗';
  console.log(`  ${mark} ${stage.name}: ${outcome}`);
}
const notRun = selected.filter((s) => outcomes.get(s.id).startsWith('NOT RUN'));
if (notRun.length > 0)
  console.log(
    `\nNot run, for what this machine lacks (see the top of the log): ${notRun.map((s) => s.id).join(', ')}.`,
  );
if (retriedTests.length > 0) {
  console.log('\nPassed only when run again (flaky: look into them)');
  for (const line of retriedTests) console.log(`  ~ ${line}`);
}
if (failedTests.length > 0) {
  console.log('\nFailed tests');
  for (const line of failedTests) console.log(`  ✗ ${line}`);
}
process.exit(selected.every((s) => /^(ok|NOT RUN)/.test(outcomes.get(s.id))) ? 0 : 1);
