import { defineConfig } from 'vitest/config';
import { DISABLE_PROTO_FLAG } from '@acme/service-kit/prototype';

// Browser journeys: one system started for the whole run (global-setup.ts), files run one
// after another so the two cores are not fighting over Chromium and argon2 at once.
export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['**/*.e2e.ts'],
    globalSetup: ['./global-setup.ts'],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // As every service process runs (packages/service-kit/src/prototype.ts).
    execArgv: [DISABLE_PROTO_FLAG],
  },
});
