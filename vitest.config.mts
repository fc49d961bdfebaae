import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const src = path.resolve(import.meta.dirname, 'src');

/** Tests of pure modules: no Temporal server, so they skip the dev server's start-up (`npm run test:unit`). */
const UNIT_SUITE = ['test/unit/**/*.test.ts'];

/**
 * The agent runs the cluster project repeats on a production-shape cluster (PostgreSQL, one process per Temporal
 * service): tools, approvals, subagents and continue-as-new, the paths that cross every service.
 */
const CLUSTER_SUITE = [
  'test/workflow/success.test.ts',
  'test/workflow/approvals.test.ts',
  'test/workflow/subagents.test.ts',
  'test/workflow/long-run.test.ts',
];

export default defineConfig({
  resolve: {
    // The examples import the package by its name, as users do; inside this repo the name means the sources.
    alias: [
      { find: /^durable-react-agent$/, replacement: path.join(src, 'index.ts') },
      {
        find: /^durable-react-agent\/(workflow|worker|testing|replay|inbox)$/,
        replacement: path.join(src, '$1', 'index.ts'),
      },
    ],
  },
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: workflow files each run a worker; more than two at once only adds contention.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: UNIT_SUITE,
        },
      },
      {
        extends: true,
        test: {
          name: 'dev',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT_SUITE],
          // One real Temporal dev server and one workflow bundle for the whole run (test/support/global-setup.ts).
          globalSetup: ['test/support/global-setup.ts'],
          // SDK log lines go to .data/test-logs/<run>.log, only errors to the console (test/support/sdk-log.ts).
          setupFiles: ['test/support/sdk-log-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'cluster',
          include: CLUSTER_SUITE,
          // The same files against a throwaway PostgreSQL-backed cluster (test/support/cluster-setup.ts).
          globalSetup: ['test/support/cluster-setup.ts'],
          setupFiles: ['test/support/sdk-log-setup.ts'],
        },
      },
    ],
  },
});
