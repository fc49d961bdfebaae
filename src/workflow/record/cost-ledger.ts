import {
  addCost,
  addEngineActions,
  carriedCostOf,
  emptyCost,
  engineActionsTotal,
  priceUsage,
  roundUsd,
  type CarriedCost,
  type EngineActions,
  type ModelCallCost,
  type RunCost,
  type RunPricing,
  addUsage,
  type TokenUsage,
} from '../../shared/cost';
import type { CostSummary } from '../../shared/events';
import { countRetries, runEngineActions } from './engine-action-counter';

/*
 * The run's cost ledger: tokens, money and tool time from what the run's calls returned, the engine actions its
 * interceptor counted, and the totals of earlier runs and subagents. Every figure comes from what the run did, so it is
 * part of the run, replays the same and is carried across continue-as-new. Money is priced with the price the run
 * recorded at its start (`terms.pricing`), never the worker's current table. Nothing here issues a command of its own.
 */

/** The ledger: the chain's totals so far (this run's engine actions apart, see `engineActionsOf`) and its model calls. */
export interface CostLedger {
  readonly totals: CarriedCost;
  readonly calls: readonly ModelCallCost[];
}

type Writable = { totals: CarriedCost; calls: ModelCallCost[] };
const writable = (ledger: CostLedger): Writable => ledger as Writable;

/** A first run's empty ledger, or the chain's so far. */
export function createLedger(carried: CarriedCost | undefined): CostLedger {
  return { totals: carried ?? emptyCost(), calls: [] };
}

/** The chain's engine actions so far: the ledger's totals and this run's own (see `engine-action-counter`). */
export function engineActionsOf(ledger: CostLedger): EngineActions {
  return addEngineActions(ledger.totals.engineActions, runEngineActions());
}

/** One model call's tokens and money, and its retries (a retried paid call is waste). */
export function recordModelCall(
  ledger: CostLedger,
  pricing: RunPricing,
  call: { kind: ModelCallCost['kind']; iteration: number; usage: TokenUsage; attempts?: number; local?: boolean },
): void {
  const { model, price } = pricing;
  const usd = price ? priceUsage(call.usage, price) : null;
  const attempts = call.attempts ?? 1;
  const { totals } = writable(ledger);
  writable(ledger).calls.push({ kind: call.kind, iteration: call.iteration, model, usage: call.usage, attempts, usd });
  const retries = countRetries(attempts, call.local);
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
  const retries = countRetries(call.attempts, call.local);
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
  const engineActions = engineActionsOf(ledger);
  return {
    ...totals,
    models: { ...totals.models },
    tools: { ...totals.tools },
    engineActions,
    wasted: { ...totals.wasted },
    subagents: [...totals.subagents],
    calls: [...ledger.calls],
    engineActionsTotal: engineActionsTotal(engineActions),
  };
}

/** The totals the `terminated` event carries; `upcomingUpserts`: the final status upsert, published after it. */
export function costSummary(ledger: CostLedger, upcomingUpserts = 0): CostSummary {
  return {
    usd: ledger.totals.usd,
    tokens: ledger.totals.usage.totalTokens,
    engineActions: engineActionsTotal(engineActionsOf(ledger)) + upcomingUpserts,
  };
}

/** The ledger's totals for the next run of the chain. */
export function carryCost(ledger: CostLedger): CarriedCost {
  return carriedCostOf(toRunCost(ledger));
}
