import path from 'node:path';
import { defineConfig } from 'vitest/config';

const src = path.resolve(import.meta.dirname, 'src');

export default defineConfig({
  resolve: {
    // The examples import the package by its name, as users do; inside this repo the name means the sources.
    alias: [
      { find: /^durable-react-agent$/, replacement: path.join(src, 'index.ts') },
      { find: /^durable-react-agent\/(workflow|worker|testing)$/, replacement: path.join(src, '$1', 'index.ts') },
    ],
  },
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
