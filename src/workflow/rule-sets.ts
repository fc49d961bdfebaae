import { patched } from '@temporalio/workflow';

/**
 * The loop's rule sets, oldest first: the one place that says what each generation changed. A change of the loop's
 * rules that alters the commands a run issues would break the replay of runs recorded before it, so it lands as a new
 * generation: a new patch marker plus the named flags it turns on. A run asks for the markers once, at its start, and
 * keeps that generation's flags for its whole life (`RunState.rules`); the loop reads flags, never generation numbers.
 *
 * Generation 1 is the 1.0 baseline: it records no marker and has no flags, since every change made before 1.0 was
 * folded into it. New generations come after it, each with its marker; a generation's flags are its own plus every
 * older generation's.
 */
const GENERATIONS = [
  {
    generation: 1,
    // The 1.0 baseline: no marker, so a history without any later generation's marker replays as generation 1.
    marker: null,
    adds: {},
  },
] as const;

type Generation = (typeof GENERATIONS)[number];
/** Keys of every member of a union (`keyof` of a union gives only the keys all members share). */
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** A named behaviour of the loop's rules (none yet: the baseline has no flags). */
export type RuleFlag = KeysOfUnion<Generation['adds']>;
/** The behaviours a run follows: one flag per change a generation made, on from that generation. */
export type RuleFlags = { readonly [Flag in RuleFlag]: boolean };

/** One generation as the rest of the code sees it: its marker and its flags (its own and every older one's). */
export interface RuleSet {
  readonly generation: number;
  /** The patch marker that records it; null for generation 1. */
  readonly marker: string | null;
  /** What this generation adds to the previous one. */
  readonly adds: readonly RuleFlag[];
  readonly flags: RuleFlags;
}

const NO_FLAGS = Object.fromEntries(
  GENERATIONS.flatMap((entry) => Object.keys(entry.adds)).map((flag) => [flag, false]),
) as Record<RuleFlag, boolean>;

/** Every generation, oldest first, with its flags accumulated. */
export const RULE_SETS: readonly RuleSet[] = GENERATIONS.reduce<RuleSet[]>((sets, entry) => {
  const adds = Object.keys(entry.adds) as RuleFlag[];
  const flags: Record<string, boolean> = { ...(sets[sets.length - 1]?.flags ?? NO_FLAGS) };
  for (const flag of adds) flags[flag] = true;
  sets.push({ generation: entry.generation, marker: entry.marker, adds, flags });
  return sets;
}, []);

/** The generation new runs get. */
export const LATEST_RULE_SET: RuleSet = RULE_SETS[RULE_SETS.length - 1]!;

/**
 * The rule set of this run. Newest first: a new run records only the newest marker; a recorded run stops at the one
 * it was recorded with, asking for exactly the markers it asked for then (a `patched()` call made live records its
 * marker, so the order of the calls is part of the history). Call it once, at the start.
 */
export function resolveRuleSet(): RuleFlags {
  for (let index = RULE_SETS.length - 1; index >= 0; index -= 1) {
    const { marker, flags } = RULE_SETS[index]!;
    if (marker === null || patched(marker)) return flags;
  }
  return RULE_SETS[0]!.flags;
}
