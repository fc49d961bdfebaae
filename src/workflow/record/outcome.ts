import type { ConversationState, ReActTrace } from '../../shared/types';
import type { TerminationReason } from '../../shared/termination-reasons';

/** Why and how a run is stopping. */
export interface StopDecision {
  readonly reason: TerminationReason;
  readonly detail: string;
}

/**
 * How the run (or a conversation's turn) ends: why it stops and what it answered. Read anywhere; written only through
 * the functions below, so the first stop reason always wins and a new turn clears every part of it.
 */
export interface RunOutcome {
  readonly stop: StopDecision | null;
  readonly finalAnswer: string | null;
  /** The validated final answer (with an output schema or signature). */
  readonly output: unknown;
  readonly confidence: number | null;
  /** What became of the forced final answer, once the run needed one. */
  readonly forcedFinalAnswer: ReActTrace['forcedFinalAnswer'];
}

type Writable = { -readonly [Key in keyof RunOutcome]: RunOutcome[Key] };

/** An outcome with nothing decided yet. */
export function createOutcome(): RunOutcome {
  return { stop: null, finalAnswer: null, output: undefined, confidence: null, forcedFinalAnswer: undefined };
}

/** Decides the stop unless one was already decided (the first cause wins). */
export function decideStop(outcome: RunOutcome, reason: TerminationReason, detail: string): void {
  (outcome as Writable).stop ??= { reason, detail };
}

/** Adds to the decided stop's detail what happened after it (the forced answer was skipped). */
export function extendStopDetail(outcome: RunOutcome, extra: string): void {
  if (outcome.stop) (outcome as Writable).stop = { ...outcome.stop, detail: `${outcome.stop.detail}; ${extra}` };
}

/** Takes the run's answer, with its validated output (if any) and confidence. */
export function acceptAnswer(
  outcome: RunOutcome,
  answer: { text: string; output: unknown; confidence: number | null },
): void {
  const writable = outcome as Writable;
  writable.finalAnswer = answer.text;
  writable.output = answer.output;
  writable.confidence = answer.confidence;
}

/** Says what became of the forced final answer. */
export function settleForcedAnswer(outcome: RunOutcome, forced: NonNullable<RunOutcome['forcedFinalAnswer']>): void {
  (outcome as Writable).forcedFinalAnswer = forced;
}

/** Clears the outcome for a conversation's new turn. */
export function clearOutcome(outcome: RunOutcome): void {
  Object.assign(outcome as Writable, createOutcome());
}

/** The last turn's outcome, taken over by a run that resumes a conversation's wait. */
export function resumeOutcome(outcome: RunOutcome, awaiting: NonNullable<ConversationState['awaiting']>): void {
  const writable = outcome as Writable;
  writable.finalAnswer = awaiting.finalAnswer;
  writable.stop = awaiting.stop;
  writable.output = awaiting.output;
  writable.confidence = awaiting.confidence;
}
