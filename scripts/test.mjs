// `npm test`: every check the project has, in order, with a summary at the end.
// Runs under Node 24 (node_modules/.bin/node, put on PATH by npm).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

function ensureChromium() {
  if (existsSync('/usr/bin/chromium')) return true;
  if (process.getuid?.() !== 0) return false;
  console.log('Installing Debian Chromium for the browser tests…');
  const ok = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'inherit' }).status === 0;
  return (
    ok('apt-get update -qq') &&
    ok('DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null')
  );
}

function ensureNginx() {
  if (has('nginx') && has('openssl')) return true;
  if (process.getuid?.() !== 0) return false;
  console.log('Installing nginx to check the load balancer configuration…');
  const ok = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'inherit' }).status === 0;
  return (
    ok('apt-get update -qq') &&
    ok('DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light openssl >/dev/null') &&
    has('nginx')
  );
}

// `nginx -t` on docker/nginx.conf, copied into a scratch prefix with a throwaway certificate where
// the configuration expects its own (tls/ next to it).
const nginxCheck = [
  'set -e',
  'd=$(mktemp -d)',
  'trap \'rm -rf "$d"\' EXIT',
  'cp docker/nginx.conf "$d/nginx.conf"',
  'mkdir "$d/tls"',
  'openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=nginx-check -days 1 -keyout "$d/tls/privkey.pem" -out "$d/tls/fullchain.pem" 2>/dev/null',
  'nginx -t -q -p "$d" -c "$d/nginx.conf" -e stderr',
].join('\n');

const steps = [
  ['lint', [bin('eslint'), '.', '--max-warnings=0']],
  ['format', [bin('prettier'), '--check', '--log-level=warn', '.']],
  // Unused files, exports and dependencies, and imports of undeclared packages (knip.json).
  ['unused code and dependencies (knip)', [bin('knip'), '--no-progress']],
  // Duplicated blocks of 10 lines or more in source files outside tests (.jscpd.json).
  ['duplicate code (jscpd)', [bin('jscpd'), '--silent', '.']],
  ['typecheck (services, packages, tools)', [bin('tsc'), '-p', 'tsconfig.json']],
  ['typecheck (account app)', [bin('tsc'), '-p', 'apps/account/tsconfig.json']],
  ['unit and integration tests on PGlite', [bin('vitest'), 'run']],
  ['load balancer configuration (nginx -t)', ['sh', '-c', nginxCheck], {}, '.', ensureNginx],
];
const postgres = has('initdb') && has('pg_ctl');
if (postgres) {
  steps.push([
    'integration tests on a throwaway PostgreSQL cluster',
    [bin('vitest'), 'run'],
    { TEST_DB: 'postgres' },
  ]);
} else {
  console.log(
    'PostgreSQL binaries (initdb, pg_ctl) not found: the PostgreSQL run and the cluster journeys are left out.',
  );
}
steps.push(['build the account app', [bin('vite'), 'build', '--logLevel', 'warn'], {}, 'apps/account']);
steps.push(['bundle budget (size-limit)', [bin('size-limit')], {}, 'apps/account']);
steps.push([
  'end-to-end journeys in Chromium',
  [bin('vitest'), 'run', '--config', 'e2e/vitest.config.ts'],
  { E2E_TARGET: 'process' },
  '.',
  ensureChromium,
]);
// The same journeys against the scaled-out system of `npm run start:cluster`: what must hold
// whichever instance answers (sessions, flows, limits in the database) is checked in a browser.
if (postgres) {
  steps.push([
    'end-to-end journeys against the cluster (2 instances each, PostgreSQL)',
    [bin('vitest'), 'run', '--config', 'e2e/vitest.config.ts'],
    { E2E_TARGET: 'cluster' },
    '.',
    ensureChromium,
  ]);
}

// Each Vitest step also writes a JSON report, so that the summary can name every failed test: a
// failure scrolled past in a long CI log is otherwise hard to find.
const reports = mkdtempSync(join(tmpdir(), 'acme-test-'));
const failedTests = [];
function readFailures(file) {
  if (!existsSync(file)) return;
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const suite of report.testResults ?? []) {
      const where = relative(root, suite.name);
      const failed = (suite.assertionResults ?? []).filter((t) => t.status === 'failed');
      if (failed.length === 0 && suite.status === 'failed')
        failedTests.push(`${where}: ${String(suite.message ?? 'the file failed to run').split('\n')[0]}`);
      for (const t of failed) failedTests.push(`${where} > ${t.fullName}`);
    }
  } catch {
    failedTests.push(`(could not read ${file})`);
  }
}

const results = [];
for (const [index, [name, [cmd, ...originalArgs], env = {}, cwd = '.', precondition]] of steps.entries()) {
  const report = join(reports, `step-${index}.json`);
  const args =
    cmd === bin('vitest')
      ? [...originalArgs, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`]
      : originalArgs;
  console.log(`\n▶ ${name}`);
  if (precondition && !precondition()) {
    results.push([
      name,
      `FAILED (${precondition === ensureNginx ? 'nginx' : 'Chromium'} could not be installed)`,
    ]);
    continue;
  }
  const started = Date.now();
  const run = spawnSync(cmd, args, {
    cwd: join(root, cwd),
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (run.status !== 0) readFailures(report);
  results.push([
    name,
    run.status === 0 ? `ok (${secs}s)` : `FAILED (exit ${run.status ?? run.signal}, ${secs}s)`,
  ]);
}

console.log('\nSummary');
for (const [name, outcome] of results)
  console.log(`  ${outcome.startsWith('ok') ? '✓' : '✗'} ${name}: ${outcome}`);
if (failedTests.length > 0) {
  console.log('\nFailed tests');
  for (const line of failedTests) console.log(`  ✗ ${line}`);
}
process.exit(results.every(([, outcome]) => outcome.startsWith('ok')) ? 0 : 1);
