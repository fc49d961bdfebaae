import type { ChatCompletion } from 'openai/resources/chat/completions';
import { CHARS_PER_TOKEN } from '../../shared/observation';
import type { TokenUsage } from '../../shared/types';

/** Reads usage from the response; when an endpoint omits it, falls back to the character estimate. */
export function readUsage(completion: ChatCompletion, promptChars: number, replyChars: number): TokenUsage {
  const usage = completion.usage;
  if (usage) {
    return {
      promptTokens: usage.prompt_tokens,
      completionTokens: usage.completion_tokens,
      totalTokens: usage.total_tokens,
    };
  }
  const promptTokens = Math.ceil(promptChars / CHARS_PER_TOKEN);
  const completionTokens = Math.ceil(replyChars / CHARS_PER_TOKEN);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
