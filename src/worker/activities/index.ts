import type OpenAI from 'openai';
import type { ToolRegistry } from '../tools/registry';
import { createCallModel } from './llm';
import { PromptCache } from './prompt-cache';
import { ModelLatency } from '../model-latency';
import { createCritique } from './critic';
import { createSummarize } from './summarize';
import { createPrepareRun } from './prepare-run';
import { createListTools, createReconcileTool, createRunTool, createValidateToolArgs } from './tools';
import { withWellFormedFailures } from './well-formed-failures';
import type { RunTuning } from '../model-calls';
import type { PriceTable } from '../../shared/cost';

/** What the activities need from the worker process; tests pass the same shape with a scripted endpoint. */
export interface ActivityDependencies {
  openai: OpenAI;
  defaultModel: string;
  registry: ToolRegistry;
  /** Characters of prompts kept for model calls' deltas (default 8,000,000; see prompt-cache.ts). */
  promptCacheChars?: number;
  /** What every run this worker starts records as its tuning (default: activities, run-ahead on, stock policy). */
  tuning?: RunTuning;
  /** Model prices every run this worker starts records for its model (default: none, runs show "no price"). */
  prices?: PriceTable;
  /** Whether this worker verifies signed decisions (it holds approval keys): `approvals.requireSigned` needs it. */
  verifiesSignatures?: boolean;
}

/** Builds every activity the agent workflow calls. */
export function createActivities(deps: ActivityDependencies) {
  const listTools = createListTools(deps.registry);
  const latency = new ModelLatency();
  return withWellFormedFailures({
    callModel: createCallModel({ ...deps, promptCache: new PromptCache(deps.promptCacheChars), latency }),
    summarize: createSummarize(deps),
    critique: createCritique(deps),
    runTool: createRunTool(deps.registry),
    reconcileTool: createReconcileTool(deps.registry),
    listTools,
    prepareRun: createPrepareRun(
      listTools,
      deps.defaultModel,
      deps.tuning ?? { modelCalls: 'activity', runAhead: true },
      deps.prices ?? {},
      latency,
      deps.verifiesSignatures ?? false,
    ),
    validateToolArgs: createValidateToolArgs(deps.registry),
  });
}

/** The activity interface the workflow proxies (imported there as a type only). */
export type Activities = ReturnType<typeof createActivities>;
