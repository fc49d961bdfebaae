import path from 'node:path';

/** The stock workflows' entry (`src/workflows` or `dist/workflows`), bundled when a worker names no workflows. */
export const STOCK_WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows');

/** The module every stock bundle preloads into its V8 context (see src/workflows/sandbox-setup.ts). */
export const SANDBOX_SETUP_PATH = path.join(STOCK_WORKFLOWS_PATH, 'sandbox-setup');

/**
 * The failure converter every stock bundle carries (see src/workflow/failure-converter.ts); encrypted workers bundle
 * at start with the one their data converter names instead.
 */
export const FAILURE_CONVERTER_PATH = path.join(__dirname, '..', 'workflow', 'failure-converter');

/**
 * The workflow interceptor that counts a run's engine actions for its cost ledger (see
 * src/workflow/record/engine-action-counter.ts): in every bundle that runs the agent workflow.
 */
export const ENGINE_ACTION_COUNTER_PATH = path.join(__dirname, '..', 'workflow', 'record', 'engine-action-counter');

/**
 * How the stock workflows are bundled, wherever that happens (`npm run build`, a worker bundling at start, the test
 * harness): the entry, the engine-action counter, and the sandbox set-up preloaded unless workflow stack traces are
 * wanted.
 */
export function stockBundleOptions(options: { stackTraces?: boolean } = {}): {
  workflowsPath: string;
  preloadModules: string[];
  failureConverterPath: string;
  workflowInterceptorModules: string[];
} {
  return {
    workflowsPath: STOCK_WORKFLOWS_PATH,
    workflowInterceptorModules: [ENGINE_ACTION_COUNTER_PATH],
    preloadModules: options.stackTraces ? [] : [SANDBOX_SETUP_PATH],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
