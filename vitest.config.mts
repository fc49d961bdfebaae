import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One real Temporal dev server and one workflow bundle for the whole run (see test/support/global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: workflow files each run a worker; more than two at once only adds contention.
    maxWorkers: 2,
  },
});
