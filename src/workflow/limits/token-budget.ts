import { estimateTokens } from '../../shared/observation';
import { setTokenRatio } from '../record/prompt-state';
import type { RunState } from '../record/run-state';

/** Fewest completion tokens a call under a token budget is made with; with less room the call is not made. */
export const MIN_COMPLETION_TOKENS = 64;
/** Completion tokens kept for the forced final answer while the loop decides whether it can afford another call. */
export const FINAL_ANSWER_COMPLETION_TOKENS = 256;

/** What a model call may spend: no cap (no budget), a cap, or not at all. */
export type CallAllowance = { maxTokens?: undefined } | { maxTokens: number } | { refused: string };

/** Character estimates of request objects already measured (a prompt is a fresh array each time it is built). */
const measured = new WeakMap<object, number>();

/**
 * The character estimate of a request's tokens, measured once per request object: the budget, the context window and
 * the learnt ratio each ask for the same prompt's, and serialising a long prompt is the costly part.
 */
export function rawPromptTokens(request: unknown): number {
  if (typeof request !== 'object' || request === null) return estimateTokens(JSON.stringify(request) ?? '');
  let tokens = measured.get(request);
  if (tokens === undefined) {
    tokens = estimateTokens(JSON.stringify(request));
    measured.set(request, tokens);
  }
  return tokens;
}

/** Estimated prompt tokens of a request, scaled by how far the estimate fell short of the model's own reports. */
export function estimatePromptTokens(state: RunState, request: unknown): number {
  return Math.ceil(rawPromptTokens(request) * state.prompt.tokenRatio);
}

/**
 * Learns from a call's reported usage how far the character estimate is off (tool definitions and the tokenizer
 * add what the message text alone does not show), so the next call's estimate is not too low. Never below 1.
 */
export function learnPromptRatio(state: RunState, request: unknown, reportedPromptTokens: number): void {
  const raw = rawPromptTokens(request);
  if (raw > 0 && reportedPromptTokens > 0) setTokenRatio(state.prompt, reportedPromptTokens / raw);
}

/**
 * Whether a call with this prompt fits the run's token budget while `reserve` tokens stay free for later, and the
 * completion cap that keeps it inside. The budget is a hard cap.
 */
export function allowance(state: RunState, promptTokens: number, reserve = 0): CallAllowance {
  const budget = state.budget.limits.tokenBudget;
  if (budget === undefined) return {};
  const left = budget - state.counters.usage.totalTokens;
  const maxTokens = left - promptTokens - reserve;
  if (maxTokens >= MIN_COMPLETION_TOKENS) return { maxTokens };
  const kept = reserve > 0 ? `, keeping ~${reserve} for the final answer` : '';
  return {
    refused:
      `the next model call (~${promptTokens} prompt tokens and at least ${MIN_COMPLETION_TOKENS} for the reply${kept}) ` +
      `would exceed the budget of ${budget} tokens (${state.counters.usage.totalTokens} used)`,
  };
}

/**
 * The allowance of any call the loop makes before its end (thinking, summaries, the critic): room for the call itself
 * and, when the run will force a final answer, for that too.
 */
export function loopCallAllowance(state: RunState, request: unknown): CallAllowance {
  const promptTokens = estimatePromptTokens(state, request);
  const reserve = state.config.forceFinalAnswer ? promptTokens + FINAL_ANSWER_COMPLETION_TOKENS : 0;
  return allowance(state, promptTokens, reserve);
}

/** An activity input with the allowance's completion cap, when there is one. */
export function withCap<T extends object>(input: T, maxTokens: number | undefined): T & { maxTokens?: number } {
  return maxTokens === undefined ? input : { ...input, maxTokens };
}

/**
 * A thinking call's completion cap: the config's `maxTokens` and the budget's allowance, whichever is smaller (either
 * may be unset). The allowance alone still decides whether the call is made at all.
 */
export function completionCap(configured: number | undefined, allowed: number | undefined): number | undefined {
  if (configured === undefined) return allowed;
  return allowed === undefined ? configured : Math.min(configured, allowed);
}
