import { CHARS_PER_TOKEN } from '../../shared/observation';
import type { TokenUsage } from '../../shared/cost';

/** A token count as an endpoint should report it: a whole number, not negative. */
function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/**
 * Reads usage from the response; when an endpoint omits it, or reports counts that are not whole non-negative
 * numbers (negative, strings, NaN), each bad count falls back to the character estimate. Usage feeds the token budget
 * and the metrics, so a broken report must not get past this boundary.
 */
export function readUsage(usage: unknown, promptChars: number, replyChars: number): TokenUsage {
  const reported = typeof usage === 'object' && usage !== null ? (usage as Record<string, unknown>) : undefined;
  const promptTokens = count(reported?.prompt_tokens) ?? Math.ceil(promptChars / CHARS_PER_TOKEN);
  const completionTokens = count(reported?.completion_tokens) ?? Math.ceil(replyChars / CHARS_PER_TOKEN);
  // The total is only believed when it is consistent with its parts.
  const total = count(reported?.total_tokens);
  const totalTokens =
    total !== undefined && total >= promptTokens + completionTokens ? total : promptTokens + completionTokens;
  // OpenAI's `prompt_tokens_details.cached_tokens`: billed at the cached price, so the cost ledger needs it.
  const details = reported?.prompt_tokens_details;
  const cached =
    typeof details === 'object' && details !== null
      ? count((details as Record<string, unknown>).cached_tokens)
      : undefined;
  const cachedPromptTokens = cached !== undefined && cached > 0 ? Math.min(cached, promptTokens) : undefined;
  return { promptTokens, completionTokens, totalTokens, ...(cachedPromptTokens ? { cachedPromptTokens } : {}) };
}
