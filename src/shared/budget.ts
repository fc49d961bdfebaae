import { positiveNumber, optional, strict, text, variants, type Check, type ShapeOf } from './payload-check';
import { deciderFields, type Decider } from './identity';

/** The limits a run with `limits.onReached: 'ask'` asks a person to raise instead of stopping at. */
export type BudgetLimit = 'max_iterations' | 'token_budget' | 'timeout' | 'cost_budget';

/**
 * The four limits a person may raise, as a run holds them: its config's `limits` with every raise granted so far
 * added. The config itself stays as the run was started.
 */
export interface BudgetLimits {
  maxIterations: number;
  tokenBudget?: number | undefined;
  timeoutSeconds?: number | undefined;
  cost?: number | undefined;
}

/** What a raise of each limit is counted in. */
export const BUDGET_UNITS: Readonly<Record<BudgetLimit, 'iterations' | 'tokens' | 'seconds' | 'USD'>> = {
  max_iterations: 'iterations',
  token_budget: 'tokens',
  timeout: 'seconds',
  cost_budget: 'USD',
};

/**
 * The highest each limit may be raised to: the config schema's own maximum for it. A raise adds to the run's config,
 * which nothing checks again, so a person (or any signal) could otherwise set it far past what a config may say.
 */
export const BUDGET_LIMIT_MAX: Readonly<Record<BudgetLimit, number>> = {
  max_iterations: 100_000,
  token_budget: 1_000_000_000,
  timeout: 365 * 24 * 3600,
  cost_budget: 1_000_000,
};

/** A run waiting for a person to raise one of its limits or stop it; served with the pending calls. */
export interface PendingBudget {
  requestId: string;
  limit: BudgetLimit;
  /** "Raise the token budget from 5000 to 10000?" */
  question: string;
  /** The limit now, and the raise a plain "raise" gives (the limit's own size again). */
  current: number;
  suggested: number;
  unit: 'iterations' | 'tokens' | 'seconds' | 'USD';
  /** Why the run reached it, e.g. "reached the limit of 10 iterations". */
  detail: string;
  requestedAt: string;
  /** When the request lapses and the run stops as it would have without asking. */
  deadline: string;
}

/** Limits whose raises may be fractions (money); the others are raised by whole numbers. */
export const FRACTIONAL_LIMITS: readonly BudgetLimit[] = ['cost_budget'];

const base = { requestId: text({ min: 1 }), ...deciderFields };
type Base = ShapeOf<typeof base>;

/** A decision about a budget request. */
export type BudgetDecision = (Base & { decision: 'raise'; amount?: number }) | (Base & { decision: 'stop' });

/** Checks a person's answer to a budget request, by update or signal. */
export const checkBudgetPayload: Check<BudgetDecision> = variants<BudgetDecision>('decision', {
  raise: strict({
    ...base,
    decision: text(),
    amount: optional(positiveNumber(1_000_000_000)),
  }) as Check<BudgetDecision>,
  stop: strict({ ...base, decision: text() }) as Check<BudgetDecision>,
});

/** What a budget decision did, returned to its sender. */
export interface AppliedBudgetDecision {
  requestId: string;
  limit: BudgetLimit;
  decision: 'raise' | 'stop';
  /** The raise (in the limit's unit) and the new limit, for `raise`. */
  amount?: number;
  newLimit?: number;
  by: Decider;
}

/** How a budget request ended, as the trace keeps it. */
export interface BudgetRecord {
  requestId: string;
  limit: BudgetLimit;
  outcome: 'raise' | 'stop' | 'timeout';
  /** The limit before, and the raise (for `raise`). */
  from: number;
  amount?: number;
  by?: Decider;
  requestedAt: string;
  decidedAt: string;
}

/** The `approvers` key that names who may raise a run's budgets (stopping at a limit stays open to anyone). */
export const BUDGET_APPROVERS = '@budget';
