import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { ResolvedConfig } from '../../shared/config';
import { ErrorType } from '../../shared/errors';
import type { ToolCatalog } from '../../shared/tool-protocol';
import type { AgentWorkflowInput, WorkerTerms } from '../../shared/types';
import { listToolsLocally, prepareRun } from '../activity-proxies';
import { markFailed } from './agent-status';
import { seedProblem } from './seed';
import { localStart, type LocalStart } from './engine-action-counter';

export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, ErrorType.InvalidConfig);
}

/** What a run starts from: its config with every default, its worker's terms, and its tools when looked up with them. */
export interface RunStart {
  config: ResolvedConfig;
  terms: WorkerTerms;
  catalog: ToolCatalog | null;
  /** The context window the worker assumed for the run's model (a new run whose config sets none). */
  assumedContextWindow?: number;
  /** Where prepareRun was scheduled, when the run's first model call may join it as a local activity (prepareRun's `opensLocally`). */
  opening?: LocalStart;
}

/**
 * Checks a run's input before anything else happens. A new run's config is checked by the worker (`prepareRun`), which
 * looks its tools up in the same call: zod stays out of the workflow. A continued run carries the config its chain
 * checked. A refused input fails the run at once, shown as Failed.
 */
export async function startRun(input: AgentWorkflowInput): Promise<RunStart> {
  const refuse = (message: string): never => {
    markFailed();
    throw invalidInput(message);
  };
  if (typeof input.query !== 'string' || input.query.trim() === '') refuse('The query must be a non-empty string');
  if (input.seed !== undefined && input.carried === undefined) {
    const problem = seedProblem(input.seed);
    if (problem !== null) refuse(problem);
  }
  if (input.carried === undefined) {
    const scheduled = localStart();
    const prepared = await prepareRun.executeWithOptions({ summary: 'check config, list tools' }, [
      input.config,
      { taskTimeoutMs: workflowInfo().taskTimeoutMs },
    ]);
    if (!prepared.ok) return refuse(prepared.message);
    const { config, terms, catalog, assumedContextWindow, opensLocally } = prepared;
    return {
      config,
      terms,
      catalog,
      ...(assumedContextWindow !== undefined ? { assumedContextWindow } : {}),
      ...(opensLocally ? { opening: scheduled } : {}),
    };
  }
  // The config the chain's first run resolved, and the terms it recorded: continue-as-new hands both on as they were.
  const config: unknown = input.config;
  if (typeof config !== 'object' || config === null) return refuse('Invalid agent config: not an object');
  return { config: config as ResolvedConfig, terms: input.carried.terms, catalog: null };
}

/**
 * The run's tools: from its start, or looked up now (continued runs), in a local activity, which saves the run a
 * task-queue round trip before its first thought.
 */
export async function lookUpTools(start: RunStart): Promise<ToolCatalog> {
  if (start.catalog) return start.catalog;
  return listToolsLocally.executeWithOptions({ summary: 'list tools' }, [start.config.tools]);
}
