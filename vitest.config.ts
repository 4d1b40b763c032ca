import { defineConfig } from 'vitest/config';
import { DISABLE_PROTO_FLAG } from './packages/service-kit/src/prototype.ts';

// Unit and integration tests of every workspace, as two projects: the account app (React screens
// under jsdom, with Testing Library's set-up) and the services, packages and stand-ins.
// TEST_DB=postgres re-runs only the database-backed suites against a throwaway PostgreSQL cluster
// (see scripts/test.mjs).
const onPostgres = process.env.TEST_DB === 'postgres';
// `npm test` sets TEST_INTEGRATION=postgres when its PostgreSQL stage runs every integration suite:
// the PGlite run then keeps the unit tests and only the integration suites about the embedded system
// (the database package and the other shared packages, `npm start`'s entry points and demo, the
// queries written for PGlite's one connection), instead of running all of them a second time. The
// browser journeys on one process run every flow on PGlite. Unset (`npx vitest run`, or a machine
// without PostgreSQL), every suite runs on PGlite. docs/decisions/0025-integration-suites-once.md.
const integrationOnPostgres = process.env.TEST_INTEGRATION === 'postgres';
const EMBEDDED_INTEGRATION = [
  'packages/**/*.int.test.ts',
  'dev/test/**/*.int.test.ts',
  'services/identity/test/flows/login/login-queries.int.test.ts',
  'services/oauth2/test/persistence.int.test.ts',
];

// Every test worker runs as every service process does: without Object.prototype.__proto__
// (packages/service-kit/src/prototype.ts), so that a test sees what production would.
const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  execArgv: [DISABLE_PROTO_FLAG],
};
// The services' files share their worker process (no fresh process and module graph per file): each
// file starts its own services on its own database, so nothing a file needs is module state. Measured
// on this two-core machine: the PGlite services 384 → 138 s (562 → 252 CPU-seconds), the PostgreSQL
// run about 5 × faster. The app's screen tests keep isolation: they stub browser globals (location,
// fetch) that leak between files of one jsdom, and sharing made them slower, not faster.
const sharedWorker = { isolate: false } as const;

export default defineConfig({
  test: {
    // One worker per core. Vitest's default in a run is one fewer than the cores: one worker on a
    // two-core machine, which left a core idle while files waited for timers, sockets and databases
    // (every file has its own database, so they may run side by side).
    maxWorkers: '100%',
    projects: onPostgres
      ? [
          {
            test: {
              ...shared,
              ...sharedWorker,
              name: 'postgres',
              include: ['{services,packages,dev}/**/*.int.test.ts'],
              exclude: ['**/node_modules/**'],
              globalSetup: ['packages/test-kit/src/postgres-global-setup.ts'],
            },
          },
        ]
      : [
          {
            test: {
              ...shared,
              name: 'app',
              include: ['apps/**/*.test.{ts,tsx}'],
              exclude: ['**/node_modules/**'],
              setupFiles: ['apps/account/src/testing/setup.ts'],
            },
          },
          {
            test: {
              ...shared,
              ...sharedWorker,
              name: 'services',
              include: integrationOnPostgres
                ? ['{services,packages,dev,bench}/**/!(*.int).test.{ts,tsx}', ...EMBEDDED_INTEGRATION]
                : ['{services,packages,dev,bench}/**/*.test.{ts,tsx}'],
              // `*.pg.int.test.ts`: behaviour only a PostgreSQL server has (lost connections); they
              // run in the PostgreSQL stage only, rather than being skipped here.
              exclude: ['**/node_modules/**', '**/*.pg.int.test.ts'],
              globalSetup: ['packages/test-kit/src/pglite-global-setup.ts'],
            },
          },
        ],
  },
});
