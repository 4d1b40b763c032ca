// `npm install` / `npm ci`'s last step (package.json `postinstall`): compiles the services
// (scripts/build.mjs) and runs scripts/prepare.ts, so that the first `npm start` after an install
// finds the app built and the demo database initialised and is ready in seconds.
// Plain JavaScript: nothing is compiled yet when it runs.
//
// Skipped under CI (CI=true: the test run builds the app itself and never opens .data/pglite), with
// ACME_PREPARE=0, and in a partial checkout (the Dockerfile installs from the manifests alone).
// A failure only warns: the install has succeeded, and `npm start` does the same work itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (process.env.CI || process.env.ACME_PREPARE === '0' || !existsSync(join(root, 'scripts', 'start.ts'))) {
  process.exit(0);
}
try {
  const { buildAll } = await import('./build.mjs');
  await buildAll();
  const prepared = spawnSync(
    process.execPath,
    ['--conditions=compiled', join(root, 'scripts', 'dist', 'prepare.js')],
    { cwd: root, stdio: 'inherit' },
  );
  if (prepared.status !== 0) throw new Error(`scripts/prepare.ts exited with ${prepared.status}`);
} catch (error) {
  console.warn(`Preparing the first npm start failed (npm start will do it): ${String(error)}`);
}
