import { foldSteps } from './context-window';
import { recordError, type RunState } from '../record/run-state';

/**
 * Every `summaryEvery` iterations, folds the steps the model still sees into the running summary ("Conversation so
 * far"), so the prompt stays small however long the run gets. The trace keeps every step.
 */
export async function summarizeConversationIfDue(state: RunState): Promise<void> {
  const every = state.config.history.summaryEvery;
  if (
    every === undefined ||
    state.counters.iterations === 0 ||
    state.counters.iterations % every !== 0 ||
    state.transcript.window.length === 0
  )
    return;
  // The same folding as compaction, which checks the request fits the window, falls back to listing the steps when
  // the model cannot summarise them, and never leaves an empty summary.
  await foldSteps(state, state.transcript.window, [], 'summarise');
}

/**
 * Before a hand-over, folds the steps of the model's window that the next run will not carry (`carrySteps`) into the
 * running summary, so the model keeps what they found even in a run without `summaryEvery`. When the model cannot write the summary (budget, window, a failed call) the steps go
 * over as a list of their calls, and the error history says so.
 */
export async function summarizeBeforeHandover(state: RunState): Promise<void> {
  const { window } = state.transcript;
  const carry = state.config.history.carrySteps;
  const notCarried = carry > 0 ? window.slice(0, -carry) : [...window];
  if (notCarried.length === 0) return;
  const carried = carry > 0 ? window.slice(-carry) : [];
  const folded = await foldSteps(state, notCarried, carried, 'hand-over · summarise steps not carried');
  if (folded.listedBecause === undefined) return;
  recordError(
    state,
    'model_error',
    `at the hand-over, ${notCarried.length} step(s) the next run does not carry were not summarised ` +
      `(${folded.listedBecause}): the model keeps only a list of their calls`,
  );
}
