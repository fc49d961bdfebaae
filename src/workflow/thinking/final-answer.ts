import { CancellationScope, isCancellation, sleep } from '@temporalio/workflow';
import { activityFailureMessage } from '../activity-proxies';
import { eventText } from '../../shared/events';
import { answerCandidate, confidenceIn, type ModelReply } from '../../shared/protocol';
import { readAnswerJson } from '../../shared/output';
import { forcedAnswerInstruction } from './prompt';
import { nowIso, recordError, recordStep, type RunState } from '../record/run-state';
import { enterPhase } from '../record/run-activity';
import { addFeedback } from '../record/prompt-state';
import { acceptAnswer, extendStopDetail, settleForcedAnswer } from '../record/outcome';
import { promptFor, think } from './thinking';
import { allowance, estimatePromptTokens } from '../limits/token-budget';
import { contextLengthFailure, fitContext, recoverFromRefusal } from './context-window';

/** Records the final answer as the last step. */
function finish(state: RunState, reply: ModelReply, answer: string, forced = false): void {
  if (reply.thought !== '' && reply.thought !== answer) {
    state.events.emit({ type: 'thought', iteration: state.counters.iterations, text: eventText(reply.thought) });
  }
  state.events.emit({ type: 'final_answer', iteration: state.counters.iterations, answer: eventText(answer), forced });
  recordStep(state, {
    iteration: state.counters.iterations,
    thought: reply.thought,
    ...(reply.reasoningChars ? { reasoningChars: reply.reasoningChars } : {}),
    action: { type: 'final_answer', answer },
    observation: null,
    ...(forced ? { forced: true } : {}),
    timestamp: nowIso(),
    tokenUsage: reply.usage,
  });
}

/**
 * Takes a final answer, or sends it back: with an output schema (or signature) the answer must be JSON matching it,
 * and an invalid one becomes feedback for another try. Returns whether the answer was accepted.
 */
export function acceptFinalAnswer(state: RunState, reply: ModelReply, answer: string, forced = false): boolean {
  let output = state.outcome.output;
  if (state.checksOutput) {
    // The worker checks answers against the schema; a reply that carries no check is read here, and the workflow has
    // no JSON Schema validator, so any JSON object passes.
    const checked = reply.output ?? readAnswerJson(answer);
    if (checked.ok) output = checked.value;
    else {
      recordError(state, 'invalid_output', checked.message);
      // A forced answer has no next try: keep its text, without validated output.
      if (!forced) {
        addFeedback(state.prompt, checked.message);
        return false;
      }
    }
  }
  const confidence = (reply.type === 'final_answer' ? reply.confidence : null) ?? confidenceIn(output);
  acceptAnswer(state.outcome, { text: answer, output, confidence });
  finish(state, reply, answer, forced);
  return true;
}

/**
 * Takes a refusal as the run's answer, unchecked (a refusal matches no output schema), so the caller reads the
 * model's own words; the caller stops the run with `failure`. Asking again would only argue with it.
 */
export function acceptRefusal(state: RunState, reply: ModelReply & { type: 'refusal' }): void {
  acceptAnswer(state.outcome, { text: reply.refusal, output: undefined, confidence: null });
  finish(state, reply, reply.refusal);
}

/** The forced answer's slice past a time budget: this share of the budget, clamped to the bounds below. */
export const FORCED_ANSWER_SLICE_SHARE = 0.1;
/** The shortest slice: enough for one short reply from a slow endpoint. */
export const FORCED_ANSWER_SLICE_MIN_MS = 5_000;
/** The longest slice: a long budget must not turn into minutes of retries after it ran out. */
export const FORCED_ANSWER_SLICE_MAX_MS = 60_000;

/** The slice past a time budget of `timeoutSeconds` that the forced final answer may take. */
export function forcedAnswerSliceMs(timeoutSeconds: number): number {
  const share = timeoutSeconds * 1000 * FORCED_ANSWER_SLICE_SHARE;
  return Math.min(FORCED_ANSWER_SLICE_MAX_MS, Math.max(FORCED_ANSWER_SLICE_MIN_MS, share));
}

/**
 * How long the forced answer may take under a time budget: what is left of the budget (nothing once it ran out, or
 * after a person declined to raise it) plus the slice. Undefined without a time budget.
 */
function forcedAnswerLimitMs(state: RunState): number | undefined {
  const { timeoutSeconds } = state.budget.limits;
  if (timeoutSeconds === undefined) return undefined;
  // The budget counts from the chain's first run (a conversation's turn), as the loop's timer does.
  const startedAtMs = state.conversation?.turnStartedAtMs ?? state.startedAtMs;
  const leftMs = Math.max(0, timeoutSeconds * 1000 - (Date.now() - startedAtMs));
  return leftMs + forcedAnswerSliceMs(timeoutSeconds);
}

/**
 * After a stop other than success or cancellation: one call, without tools, for the best answer so far. Under a time
 * budget, a durable timer cancels it (with any retries and compaction it started) when its slice runs
 * out, so the budget stays a cap; the trace says the answer was cut short.
 */
export async function forceFinalAnswer(state: RunState): Promise<void> {
  if (!state.outcome.stop || !state.config.forceFinalAnswer || state.outcome.finalAnswer !== null) return;
  if (state.outcome.stop.reason === 'success' || state.outcome.stop.reason === 'cancelled') return;
  const limitMs = forcedAnswerLimitMs(state);
  if (limitMs === undefined) return askForFinalAnswer(state);
  const answering = new CancellationScope();
  const timer = new CancellationScope();
  let cutShort = false;
  void timer
    .run(() => sleep(limitMs))
    .then(
      () => {
        cutShort = true;
        answering.cancel();
      },
      () => undefined, // the answer came first and cancelled the timer
    );
  try {
    await answering.run(() => askForFinalAnswer(state));
  } catch (error) {
    // Anything else cancelling it is the workflow's own cancellation.
    if (!cutShort || !isCancellation(error)) throw error;
    const reason = `it took longer than the ${Math.round(limitMs / 1000)}s it had left (the time budget plus its slice)`;
    recordError(state, 'model_error', `forced final answer cut short: ${reason}`);
    settleForcedAnswer(state.outcome, { status: 'cut_short', reason });
    extendStopDetail(state.outcome, `the forced final answer was cut short because ${reason}`);
  } finally {
    timer.cancel();
  }
}

/** The forced final answer's call (compacting its prompt or skipping it as the context window and budget say). */
async function askForFinalAnswer(state: RunState): Promise<void> {
  const stop = state.outcome.stop;
  if (!stop) return;
  enterPhase(state.activity, 'finishing');
  const instruction = forcedAnswerInstruction(stop.detail);
  const build = () => [...promptFor(state, []), { role: 'user' as const, content: instruction }];
  const skip = (reason: string) => {
    settleForcedAnswer(state.outcome, { status: 'skipped', reason });
    extendStopDetail(state.outcome, `the forced final answer was skipped because ${reason}`);
  };
  // A refusal for the prompt's length is learnt from, and the answer asked for once more.
  for (let attempt = 1; ; attempt += 1) {
    // The answer's prompt must fit the context window too (a run stopped by it would otherwise fail here again).
    const fitted = await fitContext(state, build(), build);
    if ('refused' in fitted) return skip(fitted.refused);
    const { messages } = fitted;
    const allowed = allowance(state, estimatePromptTokens(state, messages));
    // A hard budget wins over the forced answer: skip it, and say so where the user reads why the run stopped.
    if ('refused' in allowed) return skip(`it would not fit in the token budget: ${allowed.refused}`);
    try {
      const reply = await think(state, messages, [], 'final answer · forced', allowed.maxTokens, 'final_answer');
      // A reply that was all reasoning (or calls, with no tools offered) gives no text, and the reasoning is never the
      // answer; the user still reads why the run stopped instead of an empty answer.
      const candidate = answerCandidate(reply);
      const answer =
        candidate === '' ? `(The model gave no final answer. Why the run stopped: ${stop.detail}.)` : candidate;
      acceptFinalAnswer(state, reply, answer, true);
      settleForcedAnswer(state.outcome, { status: 'given' });
      return;
    } catch (error) {
      if (isCancellation(error)) throw error;
      const refusal = attempt === 1 ? contextLengthFailure(error) : undefined;
      if (refusal && (await recoverFromRefusal(state, refusal, messages))) continue;
      const reason = activityFailureMessage(error);
      recordError(state, 'model_error', `forced final answer failed: ${reason}`);
      settleForcedAnswer(state.outcome, { status: 'failed', reason });
      return;
    }
  }
}
