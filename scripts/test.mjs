// `npm test`: every check the project has, in order, with a summary at the end.
// Runs under Node 24 (node_modules/.bin/node, put on PATH by npm).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

const steps = [
  ['lint', [bin('eslint'), '.', '--max-warnings=0']],
  ['format', [bin('prettier'), '--check', '--log-level=warn', '.']],
  ['typecheck (services, packages, tools)', [bin('tsc'), '-p', 'tsconfig.json']],
  ['typecheck (account app)', [bin('tsc'), '-p', 'apps/account/tsconfig.json']],
  ['unit and integration tests on PGlite', [bin('vitest'), 'run']],
];
if (has('initdb') && has('pg_ctl')) {
  steps.push([
    'integration tests on a throwaway PostgreSQL cluster',
    [bin('vitest'), 'run'],
    { TEST_DB: 'postgres' },
  ]);
} else {
  console.log('PostgreSQL binaries (initdb, pg_ctl) not found: the PostgreSQL run is left out.');
}
steps.push(['build the account app', [bin('vite'), 'build', '--logLevel', 'warn'], {}, 'apps/account']);
steps.push(['bundle budget (size-limit)', [bin('size-limit')], {}, 'apps/account']);
steps.push([
  'end-to-end journeys in Chromium',
  [bin('vitest'), 'run', '--config', 'e2e/vitest.config.ts'],
  {},
  '.',
  ensureChromium,
]);

const results = [];
for (const [name, [cmd, ...args], env = {}, cwd = '.', precondition] of steps) {
  console.log(`\n▶ ${name}`);
  if (precondition && !precondition()) {
    results.push([name, 'FAILED (Chromium could not be installed)']);
    continue;
  }
  const started = Date.now();
  const run = spawnSync(cmd, args, {
    cwd: join(root, cwd),
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  results.push([
    name,
    run.status === 0 ? `ok (${secs}s)` : `FAILED (exit ${run.status ?? run.signal}, ${secs}s)`,
  ]);
}

console.log('\nSummary');
for (const [name, outcome] of results)
  console.log(`  ${outcome.startsWith('ok') ? '✓' : '✗'} ${name}: ${outcome}`);
process.exit(results.every(([, outcome]) => outcome.startsWith('ok')) ? 0 : 1);
