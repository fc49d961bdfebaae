import { formatUsd, roundUsd } from '../shared/cost';
import { spentUsd } from './cost-ledger';
import type { RunState } from './run-state';
import { estimatePromptTokens } from './token-budget';

/**
 * Whether the next model call would pass `limits.cost`: what the chain and its subagents spent, plus the prompt it is
 * about to send at the recorded input price (its reply's cost cannot be known before it comes). The detail says why;
 * null when the call may be made, when the run has no cost budget, or when its model has no price (refused at start).
 */
export function costBudgetReached(state: RunState, request: unknown): string | null {
  const budget = state.config.costBudget;
  const price = state.config.pricing?.price;
  if (budget === undefined || !state.rules.costBudget || !price) return null;
  const spent = spentUsd(state.cost);
  const prompt = roundUsd((estimatePromptTokens(state, request) * price.input) / 1_000_000);
  if (spent + prompt <= budget) return null;
  return (
    `the next model call (~${formatUsd(prompt)} of prompt) would pass the cost budget of ${formatUsd(budget)} ` +
    `(${formatUsd(spent)} spent)`
  );
}
