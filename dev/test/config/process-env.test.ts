import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '@acme/cluster/processes';

/**
 * All configuration of a part is read in that part's `config.ts`, parsed once with zod at start:
 * nowhere else in a service, the account app server, a shared package or the stand-ins reads
 * `process.env`. Tests are not scanned. The exceptions below are not parts an operator configures,
 * or pass the environment on without reading a setting from it; each says why.
 */
const EXCEPTIONS: Record<string, string> = {
  'services/users/src/cli.ts':
    "the operator's command line (`npm run admin`), not the service: the admin URLs and keys it reads are the caller's",
  'apps/account/server/serve.ts': 'passes the environment on to the `vite build` child; reads no setting',
  'packages/cluster/src/free-ports.ts':
    "the test run's port slices (TEST_PORT_SLOT from `npm test`, VITEST_POOL_ID from Vitest)",
  'packages/cluster/src/processes.ts':
    "the development launchers' process spawner: gives children PATH and HOME, and SERVICE_V8_FLAGS (listed under start-cluster)",
  'packages/db/src/index.ts':
    "createTestDb's TEST_DATABASE_URL and PGLITE_TEMPLATE, set by the test run's global set-up",
  'packages/research-cli/src/cli.ts':
    "the researchers' command-line client, run on their own machine (RESEARCH_*)",
  'packages/research-cli/src/token-store.ts':
    "the same client's token directory (RESEARCH_CONFIG_DIR, XDG_CONFIG_HOME, APPDATA)",
  'packages/test-kit/src/pglite-global-setup.ts': "the test run's global set-up",
  'packages/test-kit/src/postgres-global-setup.ts': "the test run's global set-up",
};

const ROOTS = ['services', 'apps/account/server', 'packages', 'dev/src'];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name === 'test') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(path));
    else if (/\.(ts|tsx|mts|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(path);
  }
  return out;
}

/** Every source file of a part (under its `src/`, or the app server) that reads `process.env`. */
function readers(): string[] {
  return ROOTS.flatMap((root) => sources(join(repoRoot, root)))
    .map((path) => relative(repoRoot, path))
    .filter(
      (path) => path.startsWith('apps/') || path.startsWith('dev/') || /^[^/]+\/[^/]+\/src\//.test(path),
    )
    .filter((path) => /\bprocess\.env\b/.test(readFileSync(join(repoRoot, path), 'utf8')))
    .sort();
}

describe('where configuration is read', () => {
  it('no part reads process.env outside its config.ts, but for the listed exceptions', () => {
    const outside = readers().filter((path) => !path.endsWith('/config.ts') && !(path in EXCEPTIONS));
    expect(outside).toEqual([]);
  });

  it('every listed exception still reads process.env (a stale exception is removed)', () => {
    const found = new Set(readers());
    expect(Object.keys(EXCEPTIONS).filter((path) => !found.has(path))).toEqual([]);
  });
});
