import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { ResolvedConfig } from '../../shared/config';
import { withConfigDefaults } from '../../shared/config-defaults';
import { ErrorType } from '../../shared/errors';
import type { ToolCatalog } from '../../shared/tool-protocol';
import type { AgentWorkflowInput } from '../../shared/types';
import { listToolsLocally, prepareRun } from '../activity-proxies';
import { markFailed } from './agent-status';
import { seedProblem } from './seed';
import { localStart, type LocalStart } from './engine-action-counter';

export function invalidInput(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, ErrorType.InvalidConfig);
}

/** What a run starts from: its config with every default, and its tools when they were looked up with it. */
export interface RunStart {
  config: ResolvedConfig;
  catalog: ToolCatalog | null;
  /** The context window the worker assumed for the run's model (a new run whose config sets none). */
  assumedContextWindow?: number;
  /** Where prepareRun was scheduled, when the run's first model call may join it as a local activity (prepareRun's `opensLocally`). */
  opening?: LocalStart;
}

/**
 * Checks a run's input before anything else happens. A new run's config is checked by the worker (`prepareRun`), which
 * looks its tools up in the same call: zod stays out of the workflow. A continued run carries the config its chain
 * checked, with its defaults filled in here. A refused input fails the run at once, shown as Failed.
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
    const { config, catalog, assumedContextWindow, opensLocally } = prepared;
    return {
      config,
      catalog,
      ...(assumedContextWindow !== undefined ? { assumedContextWindow } : {}),
      ...(opensLocally ? { opening: scheduled } : {}),
    };
  }
  const carried: unknown = input.config ?? {};
  if (typeof carried !== 'object' || carried === null) return refuse('Invalid agent config: not an object');
  return { config: withConfigDefaults(carried), catalog: null };
}

/**
 * The run's tools: from its start, or looked up now (continued runs), in a local activity, which saves the run a
 * task-queue round trip before its first thought.
 */
export async function lookUpTools(start: RunStart): Promise<ToolCatalog> {
  if (start.catalog) return start.catalog;
  return listToolsLocally.executeWithOptions({ summary: 'list tools' }, [start.config.tools]);
}
