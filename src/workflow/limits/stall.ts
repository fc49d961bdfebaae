import { argsHash, canonicalJson } from '../../shared/canonical';
import { callPrint, distinctPrints, nearDuplicateReplies, type CallPrint } from './call-similarity';

/** Canonical form of tool arguments: keys sorted, strings trimmed, whitespace collapsed and lower-cased. */
export function normalizeArgs(value: unknown): string {
  return JSON.stringify(canonical(value));
}

function canonical(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ').toLowerCase();
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item)]));
  }
  return value ?? null;
}

/** Identity of a call for stall detection. */
export function callSignature(tool: string, args: unknown): string {
  return `${tool} ${normalizeArgs(args)}`;
}

/**
 * Identity of one iteration: the set of its calls' signatures, so order and duplicates within a reply do
 * not matter. Hashed, so what continue-as-new carries stays small however many calls or how large the arguments.
 */
export function iterationSignature(callSignatures: readonly string[]): string {
  return argsHash([...new Set(callSignatures)].sort());
}

/** The longest cycle the detector looks for: a model alternating between two or three replies. */
export const MAX_CYCLE_PERIOD = 3;
/** A reply's calls as the detail shows them, at most this many characters. */
const SHOWN_CHARS = 160;
/** A reply whose prints would carry more than this is compared exactly (it keeps continue-as-new's input small). */
const MAX_PRINT_CHARS = 2_000;

/**
 * One iteration in the stall window: its exact identity, the prints near-duplicate detection compares (absent when
 * too large), and its calls as a person reads them.
 */
export interface IterationPrint {
  readonly id: string;
  readonly calls?: readonly CallPrint[];
  readonly shown: string;
}

/** A call as it is passed to {@link iterationPrint}. */
export interface WindowCall {
  readonly tool: string;
  readonly args: unknown;
}

/** The window entry of a reply's calls, as the string `RunCounters.callSignatures` carries. */
export function iterationPrint(calls: readonly WindowCall[]): string {
  // A reply may repeat one call thousands of times: work on its distinct calls only.
  const distinct = [...new Map(calls.map((call) => [callSignature(call.tool, call.args), call])).entries()];
  const id = iterationSignature(distinct.map(([signature]) => signature));
  const prints = distinctPrints(distinct.map(([, call]) => callPrint(call.tool, call.args)));
  const shown = clip(distinct.map(([, call]) => `${call.tool} ${canonicalJson(call.args ?? null)}`).join(', '));
  const entry: IterationPrint =
    canonicalJson(prints).length <= MAX_PRINT_CHARS ? { id, calls: prints, shown } : { id, shown };
  return JSON.stringify(entry);
}

function clip(text: string): string {
  return text.length <= SHOWN_CHARS ? text : `${text.slice(0, SHOWN_CHARS - 1)}…`;
}

/** Reads a window entry. */
export function readIterationPrint(entry: string): IterationPrint {
  return JSON.parse(entry) as IterationPrint;
}

/** How many entries the window keeps so that every stall the detector knows fits: `threshold - 1` repeats of a cycle. */
export function stallWindow(threshold: number): number {
  return threshold - 1 + MAX_CYCLE_PERIOD;
}

/** Which kind of stall: the same calls, nearly the same calls, or a short cycle of replies. */
export type StallKind = 'repeat' | 'near-repeat' | 'cycle';

/** A stall found in the window: its kind, its period, and the iterations it spans (oldest first). */
export interface Stall {
  readonly kind: StallKind;
  readonly period: number;
  readonly iterations: readonly IterationPrint[];
}

/**
 * Finds a stall at the end of the window: `threshold - 1` iterations in a row that each repeat, exactly or nearly,
 * the one `period` before, for a period of 1 (a repeat) to {@link MAX_CYCLE_PERIOD} (A, B, A, B…). The model wastes as many iterations before a cycle stops it as before a repeat does; a period of 1 is
 * checked first, so A, A, A, A is a repeat, not a cycle.
 */
export function findStall(entries: readonly string[], threshold: number): Stall | null {
  const window = entries.map(readIterationPrint);
  for (let period = 1; period <= MAX_CYCLE_PERIOD; period++) {
    let exact = true;
    let repeats = 0;
    // Each earlier entry must match every later one of its phase, not only the next: a query reworded one word at a
    // time drifts away from where it began, and that is progress.
    for (let index = window.length - 1; index - period >= 0 && repeats < threshold - 1; index--) {
      const earlier = window[index - period]!;
      let matches = true;
      for (let later = index; later < window.length && matches; later += period) {
        const same = sameIteration(earlier, window[later]!);
        exact &&= same === 'exact';
        matches = same !== false;
      }
      if (!matches) break;
      repeats++;
    }
    if (repeats < threshold - 1) continue;
    const iterations = window.slice(window.length - repeats - period);
    // A cycle must alternate: a period whose replies are all alike is a repeat, and was caught at period 1.
    if (period > 1 && iterations.slice(0, period).every((entry) => sameIteration(entry, iterations[0]!))) continue;
    return { kind: period > 1 ? 'cycle' : exact ? 'repeat' : 'near-repeat', period, iterations };
  }
  return null;
}

function sameIteration(a: IterationPrint, b: IterationPrint): 'exact' | 'near' | false {
  if (a.id === b.id) return 'exact';
  return a.calls && b.calls && nearDuplicateReplies(a.calls, b.calls) ? 'near' : false;
}

/** The termination detail of a stall: its kind first, then the calls it saw. */
export function stallDetailOf(stall: Stall): string {
  const { kind, period, iterations } = stall;
  const shown = (entry: IterationPrint) => entry.shown;
  if (kind === 'cycle') {
    const turn = iterations.slice(0, period).map(shown).join(' → ');
    return `cycle: ${iterations.length} iterations went round the same ${period} replies: ${turn}`;
  }
  if (kind === 'repeat') {
    return `repeat: the same calls in ${iterations.length} iterations in a row: ${shown(iterations.at(-1)!)}`;
  }
  const distinct = [...new Set(iterations.map(shown))].join(' / ');
  return `near-repeat: nearly the same calls in ${iterations.length} iterations in a row: ${distinct}`;
}
