import type { PromptSnapshot } from '../../shared/protocol';
import type { LocalStart } from './engine-action-counter';
import type { CarriedState } from '../../shared/types';

/**
 * What the next model call carries besides the steps, what the last one sent, and what the run learnt about the
 * model's prompt sizes. Read anywhere; written only through the functions below.
 */
export interface PromptState {
  /** Corrections for the model's next call; cleared once sent. */
  readonly feedback: readonly string[];
  /** Notes for the model's next call (the critic's verdict); cleared once sent. */
  readonly notes: readonly string[];
  /** What the critic's verdict asks of the next iteration; cleared when it is taken. */
  readonly criticAction?: CriticAction;
  /** The latest prompt sent to the model: the next one travels as a delta from it, and `getPromptQuery` reads it. */
  readonly sent?: PromptSnapshot;
  /** How far the character estimate of prompt tokens fell short of the model's reports. */
  readonly tokenRatio: number;
  /** The context window the provider stated (or showed) when it refused a prompt; unset until one is refused. */
  readonly learnedContextWindow?: number;
  /** The context window the worker assumed for the run's model when the config sets none (see prepareRun). */
  readonly assumedContextWindow?: number;
  /**
   * The workflow task in which the run's first model call may be a local activity (its history length and start): the
   * task that checked its config (prepareRun's `opensLocally`). Taken by the first call, which opens locally only there.
   */
  readonly opening?: LocalStart;
}

/**
 * A verdict that acts: the final answer, asked for without tools, or the latest call run again with the critic's
 * refined query. Not carried over a continue-as-new: the critic's note, which is, still says it.
 */
export type CriticAction =
  { type: 'answer' } | { type: 'reissue'; tool: string; args: Record<string, unknown>; refinedQuery: string };

type Writable = {
  -readonly [Key in keyof PromptState]: PromptState[Key] extends readonly (infer Item)[] ? Item[] : PromptState[Key];
};

const writable = (prompt: PromptState): Writable => prompt as Writable;

/** A run's prompt state: what the chain carried, and the window the worker assumed for a new run. */
export function createPromptState(
  carried: CarriedState | undefined,
  assumedContextWindow: number | undefined,
  opening?: LocalStart,
): PromptState {
  return {
    ...(opening ? { opening } : {}),
    feedback: carried?.feedback ?? [],
    notes: carried?.notes ?? [],
    tokenRatio: carried?.promptTokenRatio ?? 1,
    ...(carried?.learnedContextWindow !== undefined ? { learnedContextWindow: carried.learnedContextWindow } : {}),
    ...(assumedContextWindow !== undefined ? { assumedContextWindow } : {}),
  };
}

/** Adds a correction for the model's next call. */
export function addFeedback(prompt: PromptState, feedback: string): void {
  writable(prompt).feedback.push(feedback);
}

/** Adds a note for the model's next call. */
export function addNote(prompt: PromptState, note: string): void {
  writable(prompt).notes.push(note);
}

/** Forgets feedback and notes: they were sent, or a conversation's new turn starts afresh. */
export function clearGuidance(prompt: PromptState): void {
  writable(prompt).feedback = [];
  writable(prompt).notes = [];
}

/** The task in which the call about to be made may open locally (see `opening`); only the first call is told. */
export function takeOpening(prompt: PromptState): LocalStart | undefined {
  const opening = prompt.opening;
  delete writable(prompt).opening;
  return opening;
}

/** Remembers the prompt just sent, which the next one is a delta from. */
export function rememberSent(prompt: PromptState, sent: PromptSnapshot): void {
  writable(prompt).sent = sent;
}

/** Sets how far the character estimate of prompt tokens falls short (never below 1). */
export function setTokenRatio(prompt: PromptState, ratio: number): void {
  writable(prompt).tokenRatio = Math.max(1, ratio);
}

/** Learns a context window from a refusal: the smallest one seen stands. */
export function learnContextWindow(prompt: PromptState, tokens: number): void {
  writable(prompt).learnedContextWindow = Math.min(prompt.learnedContextWindow ?? tokens, tokens);
}

/** Sets (or, with undefined, takes) what the critic asks of the next iteration. */
export function setCriticAction(prompt: PromptState, action: CriticAction | undefined): void {
  if (action === undefined) delete writable(prompt).criticAction;
  else writable(prompt).criticAction = action;
}
