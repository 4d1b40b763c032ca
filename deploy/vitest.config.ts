import { defineConfig } from 'vitest/config';

// The production stage of `npm test` (scripts/test.mjs runs `npm run image` first): the built images
// and the Kubernetes manifests played with podman. Apart from the other runs, which need no engine.
export default defineConfig({
  test: {
    include: ['deploy/test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
