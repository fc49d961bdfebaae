import { emptyCost, type CarriedCost, type TokenUsage } from '../../shared/cost';
import type { WorkerTerms, CarriedState, ReActStep, RunSeed } from '../../shared/types';

/*
 * Forks and continuations. The client reads the parent's trace and sends the steps to start from; the new
 * run takes them as recorded, so no model call is made and no tool runs again for them. They are in the run's own
 * trace (marked `seeded`), which keeps a fork readable on its own, and the model's window is the part of them the
 * parent's model still saw.
 */

function isStep(value: unknown): value is ReActStep {
  if (typeof value !== 'object' || value === null) return false;
  const step = value as Partial<ReActStep>;
  return (
    typeof step.iteration === 'number' &&
    typeof step.thought === 'string' &&
    typeof step.action === 'object' &&
    step.action !== null &&
    typeof step.action.type === 'string'
  );
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value >= 0;

/**
 * Why a seed cannot be used, or null. AgentClient builds seeds itself; this guards a run started by hand (the
 * Temporal UI, another SDK), which must fail with a message rather than a workflow task that throws on every retry.
 */
export function seedProblem(seed: RunSeed): string | null {
  if (typeof seed !== 'object' || seed === null) return 'Invalid seed: not an object';
  if (!Array.isArray(seed.steps) || !seed.steps.every(isStep)) return 'Invalid seed: steps must be ReAct steps';
  if (!isCount(seed.windowFrom) || seed.windowFrom > seed.steps.length)
    return 'Invalid seed: windowFrom must be an index into steps';
  const totals = seed.totals as Partial<RunSeed['totals']> | undefined;
  if (!totals || !isCount(totals.iterations) || typeof totals.usage?.totalTokens !== 'number')
    return 'Invalid seed: totals need iterations and usage';
  if (totals.cost !== undefined && !isCarriedCost(totals.cost))
    return 'Invalid seed: totals.cost must be a cost ledger as a run reports it (usage, usd, engineActions, …)';
  if (typeof seed.lineage?.workflowId !== 'string') return 'Invalid seed: lineage needs the parent workflow ID';
  return null;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const numbersOnly = (value: unknown) => isRecord(value) && Object.values(value).every((n) => typeof n === 'number');

/** The shape the ledger adds to and counts into: anything else would throw in the workflow at its first count. */
function isCarriedCost(value: unknown): value is CarriedCost {
  if (!isRecord(value)) return false;
  const { usage, usd, unpricedTokens, models, tools, engineActions, wasted, subagents } = value;
  return (
    numbersOnly(usage) &&
    typeof (usage as TokenUsage).totalTokens === 'number' &&
    (usd === null || (typeof usd === 'number' && Number.isFinite(usd) && usd >= 0)) &&
    typeof unpricedTokens === 'number' &&
    isRecord(models) &&
    isRecord(tools) &&
    Object.values(tools).every(numbersOnly) &&
    isRecord(engineActions) &&
    Object.keys(emptyCost().engineActions).every((kind) => typeof engineActions[kind] === 'number') &&
    numbersOnly(wasted) &&
    Array.isArray(subagents) &&
    subagents.every((id) => typeof id === 'string')
  );
}

/** The counters and window a seeded run starts from, in the shape a continued run receives them. */
export function carriedFromSeed(seed: RunSeed, terms: WorkerTerms, nowMs: number): CarriedState {
  const { totals } = seed;
  return {
    run: 1,
    terms,
    startedAtMs: nowMs,
    iterations: totals.iterations,
    usage: totals.usage,
    toolUsage: { ...totals.toolUsage },
    toolRuns: { ...totals.toolRuns },
    rejectedThoughts: totals.rejectedThoughts,
    errorHistory: [...(totals.errorHistory ?? [])],
    // A fresh stall window: a continued stalled run gets its chance, and a fork's next call is a new one.
    callSignatures: [],
    // Standing approvals were one person's decision about the parent run; a fork asks again.
    alwaysApproved: [],
    summary: null,
    window: seed.steps.slice(seed.windowFrom),
    feedback: [],
    notes: [],
    stepsBefore: 0,
    lineage: seed.lineage,
    ...(totals.cost ? { cost: totals.cost } : {}),
  };
}
