import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace. TEST_DB=postgres re-runs the
// database-backed suites against a throwaway PostgreSQL cluster (see scripts/test.mjs).
const onPostgres = process.env.TEST_DB === 'postgres';

export default defineConfig({
  test: {
    include: onPostgres
      ? ['{services,packages}/**/*.int.test.ts']
      : ['{apps,services,packages,dev}/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', 'e2e/**'],
    globalSetup: onPostgres ? ['packages/test-kit/src/postgres-global-setup.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
