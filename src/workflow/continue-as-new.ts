import { allHandlersFinished, condition, continueAsNew, workflowInfo } from '@temporalio/workflow';
import type { AgentWorkflowInput, ReActResult } from '../shared/types';
import { toCarried, type RunState } from './record/run-state';
import { summarizeBeforeHandover } from './thinking/summaries';
import { ARCHIVE_MAX_BYTES, archiveSteps, fitSteps, jsonBytes } from '../shared/step-archive';

/**
 * Most characters of steps one run keeps before it hands over. A run's steps travel whole in its trace
 * query and its result, which Temporal refuses over 2 MB: a run of a few large steps lost its final answer that way.
 */
export const MAX_RUN_STEPS_CHARS = 1_000_000;

/**
 * Most bytes of the next run's input: query, config, carried state, the model's window and the archive of steps.
 * Temporal refuses payloads over 2 MB; the rest is headroom for a codec's envelope and the payload's metadata.
 */
export const CONTINUE_INPUT_MAX_BYTES = 1536 * 1024;
/** Most bytes of the carried window: the model's latest steps, clipped like the archive when they are larger. */
export const CARRIED_WINDOW_MAX_BYTES = 384 * 1024;

/**
 * Whether this run should hand over to a fresh one: the server suggests it, the run did maxStepsPerRun iterations,
 * or its steps grew past {@link MAX_RUN_STEPS_CHARS}.
 */
export function shouldContinueAsNew(state: RunState): boolean {
  const iterationsThisRun = state.counters.iterations - state.counters.iterationsAtStart;
  const tooLarge = state.transcript.stepsChars > MAX_RUN_STEPS_CHARS;
  return iterationsThisRun >= state.config.history.maxStepsPerRun || tooLarge || workflowInfo().continueAsNewSuggested;
}

/**
 * Continues as a new run carrying the compact state and the resolved config (defaults applied), so the next run
 * cannot take other branches because a default changed in between. Called only between iterations, when no call is
 * pending; it still waits for every update and signal handler to finish so no decision in flight is lost.
 */
export async function continueAsNewNow(state: RunState): Promise<never> {
  // What the next run's window will not hold reaches its model as the running summary.
  await summarizeBeforeHandover(state);
  // Consumers waiting for events are sent to the next run, which keeps the newest events and their numbering.
  state.events.handOver();
  await condition(allHandlersFinished);
  const carried = toCarried(state);
  // The limits as a person raised them: the next run starts from them.
  const config = { ...state.config, limits: { ...state.config.limits, ...state.budget.limits } };
  // What is left after the parts that cannot shrink goes first to the window (the model needs it), then the archive.
  const fixed = jsonBytes({ query: state.query, config, carried: { ...carried, window: [] } });
  const room = Math.max(0, CONTINUE_INPUT_MAX_BYTES - fixed);
  carried.window = fitSteps(carried.window, Math.min(CARRIED_WINDOW_MAX_BYTES, room / 3), 'window', true) ?? [];
  // This run's steps go in the next run's start event, where clients read them with no worker.
  const archiveRoom = Math.min(ARCHIVE_MAX_BYTES, room - jsonBytes(carried.window));
  const previousSteps = archiveSteps(state.transcript.steps, archiveRoom);
  // Typed by signature rather than by importing the workflow, which imports this module.
  return continueAsNew<(input: AgentWorkflowInput) => Promise<ReActResult>>({
    query: state.query,
    config,
    carried,
    ...(previousSteps ? { previousSteps } : {}),
  });
}
