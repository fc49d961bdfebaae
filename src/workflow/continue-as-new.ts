import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AgentWorkflowInput, ReActResult } from '../shared/types';
import { toCarried, type RunState } from './run-state';
import { archiveSteps } from './step-archive';

/** Whether this run should hand over to a fresh one: the server suggests it, or the run did maxStepsPerRun iterations. */
export function shouldContinueAsNew(state: RunState): boolean {
  const iterationsThisRun = state.iterations - state.iterationsAtStart;
  return iterationsThisRun >= state.config.maxStepsPerRun || workflowInfo().continueAsNewSuggested;
}

/**
 * Continues as a new run carrying the compact state and the resolved config (defaults applied), so the next run
 * cannot take other branches because a default changed in between. Called only between iterations, when no call is
 * pending; it still waits for every update and signal handler to finish so no decision in flight is lost.
 */
export async function continueAsNewNow(state: RunState): Promise<never> {
  await condition(allHandlersFinished);
  // Rule set 2 puts this run's steps in the next run's start event, where clients read them with no worker.
  const previousSteps = state.rules >= 2 ? archiveSteps(state.steps) : undefined;
  // Typed by signature rather than by importing the workflow, which imports this module.
  return continueAsNew<(input: AgentWorkflowInput) => Promise<ReActResult>>({
    query: state.query,
    config: state.config,
    carried: toCarried(state),
    ...(previousSteps ? { previousSteps } : {}),
  });
}
