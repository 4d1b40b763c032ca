import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '@acme/cluster/processes';

/**
 * The test kit is for tests: nothing that runs outside a test (the launchers in scripts/, a
 * service, the account app and its server, a shared package, the stand-ins) imports it. What a
 * launcher needs at run time (the throwaway PostgreSQL of `npm run start:cluster`, free ports) lives
 * in a runtime package (@acme/cluster), which the test kit may use in turn. Tests, test folders and
 * the journeys are not scanned.
 */
const ROOTS = ['scripts', 'services', 'packages', 'apps/account/src', 'apps/account/server', 'dev/src'];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (['node_modules', 'dist', 'test', 'testing', 'test-kit'].includes(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** An import of the test kit, by package name or by path, static or dynamic. */
const TEST_KIT_IMPORT = /(?:from\s*|import\s*\(\s*)['"](?:@acme\/test-kit|[./]*packages\/test-kit)[/'"]/;

function importers(): string[] {
  return ROOTS.flatMap((root) => sources(join(repoRoot, root)))
    .filter((path) => TEST_KIT_IMPORT.test(readFileSync(path, 'utf8')))
    .map((path) => relative(repoRoot, path))
    .sort();
}

describe('the test kit at run time', () => {
  it('no launcher, service, app, shared package or stand-in imports @acme/test-kit outside its tests', () => {
    expect(importers()).toEqual([]);
  });

  it('the scan sees every form of such an import (it can fail)', () => {
    for (const line of [
      "import { startCluster } from '@acme/test-kit/postgres-cluster';",
      "const { freePort } = await import('@acme/test-kit/free-port');",
      "import { totp } from '../packages/test-kit/src/totp.ts';",
    ])
      expect(TEST_KIT_IMPORT.test(line), line).toBe(true);
    expect(TEST_KIT_IMPORT.test("import { startPostgres } from '@acme/cluster/postgres';")).toBe(false);
  });
});
