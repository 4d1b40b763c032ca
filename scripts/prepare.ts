// The slow part of a first `npm start`, done ahead of it by `npm install` / `npm ci`
// (scripts/postinstall.mjs runs this compiled) and, for whatever is still missing, at the start of
// `npm start` itself: the account app's Vite build and PGlite's initdb of the demo database
// (.data/pglite). Both run in child processes, side by side. Each is skipped when done already.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '@acme/account/serve';
import { repoRoot } from '@acme/cluster/processes';
import { initialiseDataDir } from '@acme/db';

/** `npm start`'s database on PGlite (when DATABASE_URL is not set). */
export const PGLITE_DATA_DIR = join(repoRoot, '.data', 'pglite');

export async function prepareFirstBoot(options: { dataDir?: string | undefined } = {}): Promise<void> {
  await Promise.all([buildApp(), options.dataDir ? initialiseDataDir(options.dataDir) : undefined]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await prepareFirstBoot({ dataDir: PGLITE_DATA_DIR });
  console.log(`Prepared the first npm start in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}
