import type { AgentErrorRecord, CarriedState } from '../../shared/types';
import { type TokenUsage, addUsage, ZERO_USAGE } from '../../shared/cost';
import { addCount } from './tool-counts';

/**
 * What a run has used and how it went wrong so far, carried across the chain: the figures the limits judge. Read
 * anywhere; written only through the functions below, so a count moves in one place.
 */
export interface RunCounters {
  /** Model calls of the loop, earlier runs of the chain included. */
  readonly iterations: number;
  /** Iterations done by earlier runs of the chain. */
  readonly iterationsAtStart: number;
  readonly usage: TokenUsage;
  /** Calls per tool the model made, refused ones included. */
  readonly toolUsage: Readonly<Record<string, number>>;
  /** Calls per tool that ran, plus calls admitted and still settling (see `ReActTrace.toolRuns`). */
  readonly toolRuns: Readonly<Record<string, number>>;
  readonly rejectedThoughts: number;
  readonly errorHistory: readonly AgentErrorRecord[];
  /** For stall detection, the latest iterations: one JSON `IterationPrint` each (see stall.ts). */
  readonly callSignatures: readonly string[];
}

/** The record as this file writes it: the readonly view above is what every other file gets. */
type Writable = {
  -readonly [Key in keyof RunCounters]: RunCounters[Key] extends readonly (infer Item)[] ? Item[] : RunCounters[Key];
};

const writable = (counters: RunCounters): Writable => counters as Writable;

/** A first run's counters, or the chain's so far. */
export function createCounters(carried: CarriedState | undefined): RunCounters {
  return {
    iterations: carried?.iterations ?? 0,
    iterationsAtStart: carried?.iterations ?? 0,
    usage: carried?.usage ?? ZERO_USAGE,
    toolUsage: carried?.toolUsage ?? {},
    toolRuns: carried?.toolRuns ?? {},
    rejectedThoughts: carried?.rejectedThoughts ?? 0,
    errorHistory: carried?.errorHistory ?? [],
    callSignatures: carried?.callSignatures ?? [],
  };
}

/** Counts the model call an iteration is about to make. */
export function startIteration(counters: RunCounters): void {
  writable(counters).iterations += 1;
}

/** Counts a thought refused by validation. */
export function countRejectedThought(counters: RunCounters): void {
  writable(counters).rejectedThoughts += 1;
}

/** Adds the tokens of one model call. */
export function addTokens(counters: RunCounters, usage: TokenUsage): void {
  writable(counters).usage = addUsage(counters.usage, usage);
}

/** Adds an entry to the error history. */
export function addError(counters: RunCounters, entry: AgentErrorRecord): void {
  writable(counters).errorHistory.push(entry);
}

/** Counts a call the model made, refused or not. */
export function addToolCall(counters: RunCounters, tool: string): void {
  addCount(writable(counters).toolUsage, tool, 1);
}

/** Takes (1) or gives back (-1) a slot of the calls that ran. */
export function addToolRun(counters: RunCounters, tool: string, delta: 1 | -1): void {
  addCount(writable(counters).toolRuns, tool, delta);
}

/** Adds the latest signatures for stall detection, keeping only the newest `keep`. */
export function addCallSignatures(counters: RunCounters, signatures: readonly string[], keep: number): void {
  const kept = writable(counters).callSignatures;
  kept.push(...signatures);
  kept.splice(0, kept.length - keep);
}

/** Forgets the stall window: a conversation's new turn is a new task. */
export function clearCallSignatures(counters: RunCounters): void {
  writable(counters).callSignatures = [];
}
