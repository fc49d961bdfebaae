import type { CarriedState, ReActStep } from '../../shared/types';

/**
 * The run's steps as the trace keeps them and as the model sees them. Read anywhere; written only through the
 * functions below, so the trace's size and the model's window move together.
 */
export interface Transcript {
  /** This run's steps (the trace); earlier runs' steps stay in their own histories. */
  readonly steps: readonly ReActStep[];
  /** Characters of this run's steps as JSON: they travel in every trace query and in the result. */
  readonly stepsChars: number;
  /** The steps the model sees: not yet folded into the summary, including some carried from the previous run. */
  readonly window: readonly ReActStep[];
  readonly summary: string | null;
  /** Steps of earlier runs of the chain. */
  readonly stepsBefore: number;
}

type Writable = {
  -readonly [Key in keyof Transcript]: Transcript[Key] extends readonly (infer Item)[] ? Item[] : Transcript[Key];
};

const writable = (transcript: Transcript): Writable => transcript as Writable;

const charsOf = (step: ReActStep): number => JSON.stringify(step).length;

/**
 * A run's transcript: empty, or what the chain carried, or a seed's steps (a fork or continuation), which count toward
 * the run's size and hand over with it like its own.
 */
export function createTranscript(carried: CarriedState | undefined, seeded: readonly ReActStep[] = []): Transcript {
  const steps = seeded.map((step) => ({ ...step, seeded: true as const }));
  return {
    steps,
    stepsChars: steps.reduce((chars, step) => chars + charsOf(step), 0),
    window: carried?.window ?? [],
    summary: carried?.summary ?? null,
    stepsBefore: carried?.stepsBefore ?? 0,
  };
}

/** Adds a step to the trace and to the model's window. */
export function appendStep(transcript: Transcript, step: ReActStep): void {
  const written = writable(transcript);
  written.steps.push(step);
  written.stepsChars += charsOf(step);
  written.window.push(step);
}

/** Replaces the window's older steps by a summary of them (and of the summary before it). */
export function foldWindow(transcript: Transcript, summary: string, newer: readonly ReActStep[]): void {
  const written = writable(transcript);
  written.summary = summary;
  written.window = [...newer];
}

/** Empties the model's window: a conversation's earlier turns reach the model as question and answer instead. */
export function clearWindow(transcript: Transcript): void {
  writable(transcript).window = [];
}
