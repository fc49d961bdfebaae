import type OpenAI from 'openai';
import type { TokenUsage } from '../../shared/cost';
import { splitReasoning } from '../../shared/protocol';
import { createChatCompletion } from './chat-completion';

/** What the auxiliary model activities (summaries, critic) need. */
export interface CompletionDependencies {
  openai: OpenAI;
  defaultModel: string;
}

/**
 * One tool-less chat completion, with the same cancellation, error classification and span as every model call. It gets
 * none of the config's model settings (temperature, maxTokens, reasoningEffort, …): those tune how the agent thinks,
 * while a summary or a verdict should stay faithful and cheap whatever the agent explores with. The only cap is the
 * token budget's.
 */
export async function completeText(
  deps: CompletionDependencies,
  model: string | undefined,
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>,
  maxTokens?: number,
): Promise<{ text: string; usage: TokenUsage }> {
  const cap = maxTokens !== undefined ? { max_tokens: maxTokens } : {};
  const { reply, usage } = await createChatCompletion(deps.openai, {
    model: model ?? deps.defaultModel,
    messages,
    ...cap,
  });
  // A reasoning model's <think> block is not part of the summary or the verdict.
  return { text: splitReasoning(reply.content).text, usage };
}
