import { formatUsd, roundUsd } from '../../shared/cost';
import { spentUsd } from '../record/cost-ledger';
import type { RunState } from '../record/run-state';
import { estimatePromptTokens, FINAL_ANSWER_COMPLETION_TOKENS } from './token-budget';

/**
 * Whether the next model call would pass `limits.cost`: what the chain and its subagents spent, plus the prompt it is
 * about to send at the recorded input price (its reply's cost cannot be known before it comes), plus, when the run
 * forces a final answer, room for that answer. The detail says why;
 * null when the call may be made, when the run has no cost budget, or when its model has no price (refused at start).
 */
export function costBudgetReached(state: RunState, request: unknown): string | null {
  const budget = state.budget.limits.cost;
  const { price } = state.terms.pricing;
  if (budget === undefined || !price) return null;
  const spent = spentUsd(state.cost);
  const promptTokens = estimatePromptTokens(state, request);
  const prompt = roundUsd((promptTokens * price.input) / 1_000_000);
  // Room for the forced final answer, as the token budget keeps it: about this prompt again and a short reply. Without
  // it the answer was paid on top of a cap already reached ($0.818 against a $0.50 cap).
  const reserve = state.config.forceFinalAnswer
    ? roundUsd((promptTokens * price.input + FINAL_ANSWER_COMPLETION_TOKENS * price.output) / 1_000_000)
    : 0;
  if (spent + prompt + reserve <= budget) return null;
  const kept = reserve > 0 ? `, keeping ~${formatUsd(reserve)} for the final answer` : '';
  return (
    `the next model call (~${formatUsd(prompt)} of prompt${kept}) would pass the cost budget of ` +
    `${formatUsd(budget)} (${formatUsd(spent)} spent)`
  );
}
