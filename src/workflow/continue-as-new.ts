import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AgentWorkflowInput, ReActResult } from '../shared/types';
import { toCarried, type RunState } from './run-state';
import { archiveSteps } from './step-archive';

/**
 * Most characters of steps one run keeps before it hands over (rule set 3). A run's steps travel whole in its trace
 * query and its result, which Temporal refuses over 2 MB: a run of a few large steps lost its final answer that way.
 */
export const MAX_RUN_STEPS_CHARS = 1_000_000;

/**
 * Whether this run should hand over to a fresh one: the server suggests it, the run did maxStepsPerRun iterations,
 * or (rule set 3) its steps grew past {@link MAX_RUN_STEPS_CHARS}.
 */
export function shouldContinueAsNew(state: RunState): boolean {
  const iterationsThisRun = state.iterations - state.iterationsAtStart;
  const tooLarge = state.rules >= 3 && state.stepsChars > MAX_RUN_STEPS_CHARS;
  return iterationsThisRun >= state.config.maxStepsPerRun || tooLarge || workflowInfo().continueAsNewSuggested;
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
