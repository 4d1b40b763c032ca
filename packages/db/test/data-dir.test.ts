import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, initialiseDataDir, sql } from '../src/index.ts';

// `npm install` initialises npm start's PGlite data directory ahead of the first start
// (scripts/prepare.ts); createDb does it for a directory that has none.
describe('initialiseDataDir', () => {
  const parent = mkdtempSync(join(tmpdir(), 'acme-data-dir-'));
  afterAll(() => rmSync(parent, { recursive: true, force: true }));

  it('initialises a new directory through a scratch directory beside it, and leaves a done one alone', async () => {
    const dataDir = join(parent, 'nested', 'pglite');
    await initialiseDataDir(dataDir);
    expect(readdirSync(join(parent, 'nested'))).toEqual(['pglite']); // no scratch directory left
    const version = statSync(join(dataDir, 'PG_VERSION')).mtimeMs;
    await initialiseDataDir(dataDir);
    expect(statSync(join(dataDir, 'PG_VERSION')).mtimeMs).toBe(version);
    const db = await createDb({ dataDir });
    try {
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(db.kysely);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('refuses a directory that holds other files, and leaves them as they are', async () => {
    const dataDir = join(parent, 'not-a-database');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    await expect(initialiseDataDir(dataDir)).rejects.toThrow(/holds files but no PostgreSQL data directory/);
    expect(readdirSync(dataDir)).toEqual(['notes.txt']);
    expect(readdirSync(parent).filter((f) => f.includes('initdb'))).toEqual([]);
  });
});
