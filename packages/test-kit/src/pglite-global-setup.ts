import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';

// Vitest global setup for the embedded-database run: initialise one PGlite data directory, dump it
// to a file, and let every test file's createTestDb() start from that dump (PGLITE_TEMPLATE)
// instead of running initdb again. initdb is most of PGlite's start-up: several seconds per file on
// a loaded two-core machine, against well under one for loading the dump.
export default async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'acme-pglite-'));
  const file = join(dir, 'template.tar');
  const pglite = new PGlite();
  await pglite.waitReady;
  const dump = await pglite.dumpDataDir('none');
  writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  await pglite.close();
  process.env.PGLITE_TEMPLATE = file;
  return () => rmSync(dir, { recursive: true, force: true });
}
