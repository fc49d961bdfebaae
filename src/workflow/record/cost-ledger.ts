import { condition, sleep, workflowInfo } from '@temporalio/workflow';
import {
  addCost,
  carriedCostOf,
  emptyCost,
  engineActionsTotal,
  priceUsage,
  roundUsd,
  TASK_HEARTBEAT_SHARE,
  type CarriedCost,
  type EngineActions,
  type ModelCallCost,
  type RunCost,
  type RunPricing,
  addUsage,
  type TokenUsage,
} from '../../shared/cost';
import type { ResolvedConfig } from '../../shared/config';
import type { CostSummary } from '../../shared/events';

/*
 * The run's cost ledger, kept by the workflow where it issues commands: every count comes from what the run did, so it
 * is part of the run, replays the same (a replay issues the same commands through the same code) and is carried across
 * continue-as-new. Money is priced with the price the run recorded at its start (`config.pricing`), never the
 * worker's current table. Nothing here issues a command of its own.
 */

/** The ledger: the chain's totals so far (carried ones included) and this run's model calls. */
export interface CostLedger {
  readonly totals: CarriedCost;
  readonly calls: readonly ModelCallCost[];
  /** The history length of the workflow task whose local activities were last counted (one action per task). */
  readonly localBatch: number | undefined;
  /**
   * Starts of the latest tasks counted for local activities, heartbeats' included (workflow time, estimated across
   * heartbeats), so none is counted twice; the last is `localBatch`'s.
   */
  readonly localTaskStarts: readonly number[];
}

type Writable = {
  totals: CarriedCost;
  calls: ModelCallCost[];
  localBatch: number | undefined;
  localTaskStarts: number[];
};
const writable = (ledger: CostLedger): Writable => ledger as Writable;

/** A first run's empty ledger, or the chain's so far. */
export function createLedger(carried: CarriedCost | undefined): CostLedger {
  return {
    totals: carried ?? emptyCost(),
    calls: [],
    localBatch: undefined,
    localTaskStarts: [],
  };
}

function count(ledger: CostLedger, kind: keyof EngineActions, amount = 1): void {
  if (amount > 0) writable(ledger).totals.engineActions[kind] += amount;
}

/** The run's own start: the first run, a continue-as-new run, a fork. A subagent's first run is its parent's 2. */
export function countRunStart(ledger: CostLedger, continued: boolean): void {
  if (continued || workflowInfo().parent === undefined) count(ledger, 'workflowStarts');
}

/** An activity about to be scheduled (local ones are counted by {@link countedActivity} when their result is in). */
export function countActivity(ledger: CostLedger): void {
  count(ledger, 'activities');
}

/** Where a local activity was scheduled: its workflow task (by history length) and when that task started. */
export interface LocalStart {
  readonly task: number;
  readonly taskStartMs: number;
}

/**
 * Where a local activity is being scheduled. Workflow time is the task's start, except in an activation that
 * delivers a local activity's result (it is then that moment); the ledger knows the start of a task it counted such a
 * result in. Without a ledger yet (prepareRun, scheduled first thing), the time is the first task's start.
 */
export function localStart(ledger?: CostLedger): LocalStart {
  const task = workflowInfo().historyLength;
  const known = ledger?.localBatch === task ? ledger.localTaskStarts.at(-1) : undefined;
  return { task, taskStartMs: known ?? Date.now() };
}

/** Task starts the ledger remembers: more than local activities running side by side ever span. */
const REMEMBERED_TASKS = 64;

/**
 * A local activity's result is in. Its marker lands in the workflow task that received it, and all the markers of
 * one task are one action; a task held open past its heartbeat point was completed by a heartbeat and another
 * started, an action each. The history length names a task (it changes between tasks, not within one). A result that
 * arrived `n` heartbeat intervals after its task started spanned that task and `n` more, which start one interval
 * apart; tasks another local activity already counted (they ran side by side) are not counted again. An estimate only
 * near a heartbeat: the SDK's heartbeats drift a little later each time.
 */
export function countLocalActivity(ledger: CostLedger, started: LocalStart): void {
  const { historyLength: task, taskTimeoutMs } = workflowInfo();
  if (ledger.localBatch === task) return; // this task, and the heartbeats before it, are counted
  const heartbeatMs = TASK_HEARTBEAT_SHARE * taskTimeoutMs;
  // The tasks it spanned, numbered from the one it was scheduled in (0) to the one it arrived in (`last`).
  const last = task === started.task ? 0 : Math.max(1, Math.floor((Date.now() - started.taskStartMs) / heartbeatMs));
  const starts = writable(ledger).localTaskStarts;
  let tasks = 0;
  for (let index = 0; index <= last; index++) {
    const startMs = started.taskStartMs + index * heartbeatMs;
    // The task it arrived in is new (checked above); an earlier one may have been counted by another.
    if (index < last && starts.some((counted) => Math.abs(counted - startMs) < heartbeatMs / 2)) continue;
    starts.push(startMs);
    tasks += 1;
  }
  starts.splice(0, Math.max(0, starts.length - REMEMBERED_TASKS));
  writable(ledger).localBatch = task;
  count(ledger, 'localActivityBatches', tasks);
}

/** Runs an activity, counted: a remote one as it is scheduled, a local one by the tasks it was billed in. */
export async function countedActivity<T>(ledger: CostLedger, local: boolean, run: () => Promise<T>): Promise<T> {
  if (!local) {
    countActivity(ledger);
    return run();
  }
  const started = localStart(ledger);
  try {
    return await run();
  } finally {
    countLocalActivity(ledger, started);
  }
}

/** Attempts past an activity's first, read from its result. */
export function countRetries(ledger: CostLedger, attempts: number | undefined, local = false): number {
  const retries = Math.max(0, (attempts ?? 1) - 1);
  count(ledger, local ? 'localActivityRetries' : 'activityRetries', retries);
  return retries;
}

/** A signal the run received, an update it accepted, a search-attribute upsert, a subagent started. */
export function countMessage(ledger: CostLedger, kind: 'signals' | 'updates' | 'searchAttributeUpserts'): void {
  count(ledger, kind);
}

/** A child workflow started (a subagent): billed as 2 actions (see `engineActionsTotal`). */
export function countChildStart(ledger: CostLedger): void {
  count(ledger, 'childStarts');
}

/** `sleep` that counts its timer. */
export function countedSleep(ledger: CostLedger, ms: number): Promise<void> {
  count(ledger, 'timers');
  return sleep(ms);
}

/**
 * `condition` with a timeout, counting its timer. A condition already true when called starts no timer the server
 * sees (the SDK cancels it in the same activation, and such a pair never reaches history), so it is not counted.
 */
export function countedCondition(ledger: CostLedger, done: () => boolean, ms: number): Promise<boolean> {
  if (!done()) count(ledger, 'timers');
  return condition(done, ms);
}

/** The pricing a run recorded; a run recorded before prices existed has none, and its calls show "no price". */
function pricingOf(config: ResolvedConfig): RunPricing {
  return config.pricing ?? { model: config.model ?? 'default', price: null };
}

/** One model call's tokens and money, and its retries (a retried paid call is waste). */
export function recordModelCall(
  ledger: CostLedger,
  config: ResolvedConfig,
  call: { kind: ModelCallCost['kind']; iteration: number; usage: TokenUsage; attempts?: number; local?: boolean },
): void {
  const { model, price } = pricingOf(config);
  const usd = price ? priceUsage(call.usage, price) : null;
  const attempts = call.attempts ?? 1;
  const { totals } = writable(ledger);
  writable(ledger).calls.push({ kind: call.kind, iteration: call.iteration, model, usage: call.usage, attempts, usd });
  const retries = countRetries(ledger, attempts, call.local);
  if (retries > 0) {
    totals.wasted.retriedModelCalls += 1;
    totals.wasted.modelRetries += retries;
  }
  totals.models[model] = price;
  totals.usage = addUsage(totals.usage, call.usage);
  if (usd === null) totals.unpricedTokens += call.usage.totalTokens;
  else totals.usd = roundUsd((totals.usd ?? 0) + usd);
}

/**
 * A new run's opening call that failed or ran out its slice of the start task, and was made again as an activity:
 * its request may have been paid, like a retried attempt's.
 */
export function countAbandonedModelCall(ledger: CostLedger): void {
  const { wasted } = writable(ledger).totals;
  wasted.retriedModelCalls += 1;
  wasted.modelRetries += 1;
}

/** One tool call's time (workflow time, scheduling to result) and retries. */
export function recordToolTime(
  ledger: CostLedger,
  tool: string,
  call: { ms: number; attempts?: number; local?: boolean },
): void {
  const retries = countRetries(ledger, call.attempts, call.local);
  const { totals } = writable(ledger);
  const time = totals.tools[tool] ?? { calls: 0, ms: 0, retries: 0 };
  totals.tools[tool] = { calls: time.calls + 1, ms: time.ms + Math.max(0, call.ms), retries: time.retries + retries };
  if (retries > 0) {
    totals.wasted.retriedToolCalls += 1;
    totals.wasted.toolRetries += retries;
  }
}

/** Results run ahead that the run did not use: paid for (tool time inside the model call) and thrown away. */
export function countDiscardedRunAhead(ledger: CostLedger, results: number): void {
  writable(ledger).totals.wasted.discardedRunAheadResults += results;
}

/** A subagent's whole cost (its chain, its own subagents), summed into its parent's. */
export function addSubagentCost(ledger: CostLedger, childWorkflowId: string, cost: RunCost | undefined): void {
  const carried = cost ? carriedCostOf(cost) : emptyCost();
  writable(ledger).totals = addCost(ledger.totals, { ...carried, subagents: [childWorkflowId, ...carried.subagents] });
}

/** USD spent so far (priced calls only; 0 when none was priced). */
export function spentUsd(ledger: CostLedger): number {
  return roundUsd(ledger.totals.usd ?? 0);
}

/** The ledger as the trace shows it. */
export function toRunCost(ledger: CostLedger): RunCost {
  const totals = ledger.totals;
  return {
    ...totals,
    models: { ...totals.models },
    tools: { ...totals.tools },
    engineActions: { ...totals.engineActions },
    wasted: { ...totals.wasted },
    subagents: [...totals.subagents],
    calls: [...ledger.calls],
    engineActionsTotal: engineActionsTotal(totals.engineActions),
  };
}

/** The totals the `terminated` event carries; `upcomingUpserts`: the final status upsert, published after it. */
export function costSummary(ledger: CostLedger, upcomingUpserts = 0): CostSummary {
  return {
    usd: ledger.totals.usd,
    tokens: ledger.totals.usage.totalTokens,
    engineActions: engineActionsTotal(ledger.totals.engineActions) + upcomingUpserts,
  };
}

/** The ledger's totals for the next run of the chain. */
export function carryCost(ledger: CostLedger): CarriedCost {
  return carriedCostOf(toRunCost(ledger));
}
