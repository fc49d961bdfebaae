import { patched } from '@temporalio/workflow';

/**
 * The loop's rule sets, oldest first: the one place that says what each generation changed. A change of the loop's
 * rules that alters the commands a run issues would break the replay of runs recorded before it, so it lands as a new
 * generation: a new patch marker plus the named flags it turns on. A run asks for the markers once, at its start, and
 * keeps that generation's flags for its whole life (`RunState.rules`); the loop reads flags, never generation numbers.
 *
 * Generation 6 is the 1.0.0-rc.0 baseline; every run a worker starts follows the newest. Generations 1 to 5 stay so
 * that runs recorded before 1.0 replay; they can be dropped (with their histories) once no such run can be in
 * flight, without touching any 1.0 run. A generation's flags are its own plus every older generation's.
 */
const GENERATIONS = [
  {
    generation: 1,
    // The first rules: no marker, so a history without any of the markers below replays as generation 1.
    marker: null,
    adds: {},
  },
  {
    generation: 2,
    marker: 'loop-rules-2',
    adds: {
      /** `tokenBudget` is a hard cap, with room kept for the forced final answer (which may be skipped). */
      hardTokenBudget: true,
      /** Stall detection counts iterations (the set of a reply's calls), not calls one at a time. */
      stallCountsIterations: true,
      /** `maxCallsPerTool` counts calls that ran (or hold a slot while they settle), not every call the model made. */
      toolCapCountsRuns: true,
      /** A thought that only restates the called tools is refused: validation sees the calls' tool names. */
      thoughtSeesCalls: true,
      /** A tool whose author says `confirm: 'always'` cannot be waived by a run's config (refused at start). */
      authorConfirmationBinds: true,
      /** Tool idempotency keys are the chain's first run ID plus the call ID. */
      chainIdempotencyKeys: true,
      /** Continue-as-new hands the run's steps to the next run's input, where clients read them with no worker. */
      handsOverSteps: true,
    },
  },
  {
    generation: 3,
    // Issue 13's hardening.
    marker: 'loop-rules-3',
    adds: {
      /** A reply with more than `maxToolCallsPerReply` calls runs none of them and goes back as feedback. */
      maxToolCallsPerReply: true,
      /** Confirmation settings and approvers that name no tool of the run are refused at start. */
      checksConfirmationNames: true,
      /** A run that fails (a refused input, a throwing hook) shows `AgentStatus = Failed`. */
      publishesFailedStatus: true,
      /** A subagent's answer is truncated to `maxObservationTokens` like any observation. */
      truncatesSubagentAnswers: true,
      /** A run continues-as-new when its steps pass `MAX_RUN_STEPS_CHARS`. */
      continuesOnLargeSteps: true,
      /** Read-only local tools may run ahead inside the model call (`runAhead`). */
      runAhead: true,
    },
  },
  {
    generation: 4,
    // Issue 17: generation 3 with the three patches before it applied, recorded as one marker. Each patch a run
    // records is a marker plus a `TemporalChangeVersion` upsert the server indexes; a new run used to record two.
    marker: 'loop-rules-4',
    adds: {},
    /**
     * Patches of their own before this generation, by their markers. An older run still asks its history for them,
     * at the point each one guards, as it did when it was recorded (see {@link foldedPatch}).
     */
    folds: {
      /** The tool-catalog lookup is a local activity. */
      localToolCatalog: 'local-tool-catalog',
      /** A new run's config is checked on the worker, with its tool lookup, in one local activity (`prepareRun`). */
      configOnWorker: 'config-on-worker',
      /** Handing over to the next run does not publish `Failed` (generation 3 did). */
      handoverKeepsStatus: 'handover-keeps-status',
    },
  },
  {
    generation: 5,
    // Issue 32, real models.
    marker: 'loop-rules-5',
    adds: {
      /** `requireThought: 'auto'` runs a call that came without a thought; older generations read it as `true`. */
      autoThought: true,
      /**
       * A prompt over the context window is compacted, or the run stops with `token_budget`, instead of failing:
       * checked before the loop's, the forced answer's and the critic's calls, and learnt from a provider's refusal.
       */
      fitsContextWindow: true,
      /** The prompt-token ratio is learnt from every reply, not only under a token budget. */
      alwaysLearnsPromptRatio: true,
      /** Periodic summaries fold steps as compaction does (checked against the window, never empty). */
      summariesFoldSteps: true,
      /** A forced final answer that came with no text says why the run stopped instead of being empty. */
      explainsEmptyForcedAnswer: true,
      /** A budget raise past the limit's maximum is refused. */
      capsBudgetRaises: true,
      /** Only a run that streams takes model deltas, and only for the call in flight. */
      guardsStreamedDeltas: true,
    },
  },
  {
    generation: 6,
    // Issue 33. The 1.0 baseline.
    marker: 'loop-rules-6',
    adds: {
      /** `approvers['@budget']` names who may raise a budget. */
      budgetApprovers: true,
      /** The memo's `agentPending` names the pending items (an upsert when they change). */
      pendingMemo: true,
      /** A conversation waiting for a message hands over to a new run, which goes on waiting. */
      handsOverWhileWaiting: true,
    },
  },
  {
    generation: 7,
    // Issue 35, the loop's judgement.
    marker: 'loop-rules-7',
    adds: {
      /** A long observation is summarised from the whole result, not from the text already cut for the model. */
      summarizesWholeObservations: true,
      /**
       * Under a time budget the forced final answer gets a bounded slice past it (a cancelling timer), and is cut
       * short when the slice runs out.
       */
      boundsForcedAnswer: true,
      /** Stall detection also stops nearly identical replies (paraphrased queries) and cycles of 2 or 3 replies. */
      nearDuplicateStalls: true,
      /** A run with hooks starts its subagents as its own workflow type, so the hooks apply to them too. */
      subagentsKeepHooks: true,
      /**
       * Before a hand-over, the window's steps the next run does not carry (`carrySteps`) are summarised into
       * "Conversation so far" (one summarise call) instead of being dropped.
       */
      summarizesAtHandover: true,
      /**
       * The critic reads the task with the run's findings so far (earlier steps' calls and observations, bounded),
       * not only the latest step: a longer critic prompt can change whether the budget or context window skips it.
       */
      criticSeesFindings: true,
      /**
       * The critic's verdicts act (config `critic`): CONTINUE asks for the final answer without tools, a refinement
       * re-runs the latest call with the refined query, CALL_DIFFERENT_TOOL steers through feedback.
       */
      criticActs: true,
      /**
       * Issue 36: a call whose outcome nobody saw (its attempts ran out by timeouts or lost workers, or a retry finds an
       * earlier attempt unseen) is reconciled by a tool that can (`reconcile` in defineTool) before it runs again: a
       * `reconcileTool` activity, and for `unknown` a pending decision for a person.
       */
      reconcilesEffects: true,
      /**
       * A decision may carry a signature and the worker's verdict on it (`approvals.requireSigned`). Older rules
       * refused such a payload as having unknown fields, signals included, so their runs replay that way.
       */
      signedDecisions: true,
      /**
       * The `publishEvents` signal (a follower's, once per run) makes each model call's input carry the events since
       * the previous call, so followers read them from history, which costs no engine action, instead of by query.
       */
      publishesEvents: true,
      /**
       * `limits.cost` (USD, priced with the run's recorded prices) is checked before each loop call: the run stops
       * with `cost_budget`, or asks a person to raise it (`limits.onReached: 'ask'`).
       */
      costBudget: true,
      /**
       * Issue 37: a tool the catalog places in another worker (`remote`) has its arguments checked by a local
       * `validateToolArgs` activity, then runs as activity `activityType` on its own task queue, with a
       * schedule-to-start timeout after which the model hears that nobody polls that queue.
       */
      remoteTools: true,
      /**
       * A conversation hands over between turns when it is due (steps, history, the server's suggestion) even while
       * messages wait, carrying them: one kept busy used to stay in one run until Temporal refused its updates.
       */
      handsOverWhenBusy: true,
      /**
       * A subagent of a run with `limits.cost` gets what is left of it as its own cost budget, and none is started
       * when nothing is left: its cost reaches the parent only when it returns. Delegations of one reply take turns
       * under a cost cap, so each is handed what the ones before it left.
       */
      subagentsShareCostBudget: true,
      /**
       * Issue 44: calls go back to the model's server with the IDs it gave them (`serverCallId`), or nine made-up
       * letters and digits where it gave none, not the run's own `c3-1`, which Mistral refuses.
       */
      sendsServerCallIds: true,
      /** Issue 45: a result a person gives (`respond`) is cut to `maxObservationTokens`, as a tool's result is. */
      capsRespondedResults: true,
    },
  },
] as const;

type Generation = (typeof GENERATIONS)[number];
/** Keys of every member of a union (`keyof` of a union gives only the keys all members share). */
type KeysOfUnion<T> = T extends unknown ? keyof T : never;
/** A behaviour that began as a patch of its own and that generation 4 folded in. */
export type FoldedPatch = KeysOfUnion<Extract<Generation, { folds: unknown }>['folds']>;
/** A named behaviour of the loop's rules. */
export type RuleFlag = KeysOfUnion<Generation['adds']> | FoldedPatch;
/** The behaviours a run follows: one flag per change a generation made, on from that generation. */
export type RuleFlags = { readonly [Flag in RuleFlag]: boolean };

/** One generation as the rest of the code sees it: its marker and its flags (its own and every older one's). */
export interface RuleSet {
  readonly generation: number;
  /** The patch marker that records it; null for generation 1. */
  readonly marker: string | null;
  /** Markers of patches this generation folded in (only generation 4 has any). */
  readonly folds: Readonly<Partial<Record<FoldedPatch, string>>>;
  /** What this generation adds to the previous one. */
  readonly adds: readonly RuleFlag[];
  readonly flags: RuleFlags;
}

const NO_FLAGS = Object.fromEntries(
  GENERATIONS.flatMap((entry) => [...Object.keys(entry.adds), ...Object.keys('folds' in entry ? entry.folds : {})]).map(
    (flag) => [flag, false],
  ),
) as Record<RuleFlag, boolean>;

/** Every generation, oldest first, with its flags accumulated. */
export const RULE_SETS: readonly RuleSet[] = GENERATIONS.reduce<RuleSet[]>((sets, entry) => {
  const folds: Partial<Record<FoldedPatch, string>> = 'folds' in entry ? entry.folds : {};
  const adds = [...Object.keys(entry.adds), ...Object.keys(folds)] as RuleFlag[];
  const flags = { ...(sets[sets.length - 1]?.flags ?? NO_FLAGS) };
  for (const flag of adds) flags[flag] = true;
  sets.push({ generation: entry.generation, marker: entry.marker, folds, adds, flags });
  return sets;
}, []);

/** The generation new runs get. */
export const LATEST_RULE_SET: RuleSet = RULE_SETS[RULE_SETS.length - 1]!;

/** The flags of one generation (tests and tools that replay a given generation). */
export function ruleSet(generation: number): RuleFlags {
  const found = RULE_SETS.find((entry) => entry.generation === generation);
  if (!found) throw new RangeError(`No rule set ${generation}`);
  return found.flags;
}

const FOLDED_MARKERS = Object.assign({}, ...RULE_SETS.map((entry) => entry.folds)) as Record<FoldedPatch, string>;

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

/**
 * Whether a run follows a behaviour that began as a patch of its own: always from generation 4, which folded it in;
 * an older run asks its history at the point the patch guards, as it did when it was recorded.
 */
export function foldedPatch(rules: RuleFlags, patch: FoldedPatch): boolean {
  return rules[patch] || patched(FOLDED_MARKERS[patch]);
}
