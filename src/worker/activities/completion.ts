import type OpenAI from 'openai';
import type { TokenUsage } from '../../shared/types';
import { withHeartbeats } from './heartbeat';
import { classifyModelError } from './model-errors';
import { readUsage } from './usage';

/** What the auxiliary model activities (summaries, critic) need. */
export interface CompletionDependencies {
  openai: OpenAI;
  defaultModel: string;
}

/**
 * One tool-less chat completion, with the same cancellation and error classification as every model call. It gets
 * none of the config's model settings (temperature, maxTokens, reasoningEffort, …): those tune how the agent thinks,
 * while a summary or a verdict should stay faithful and cheap whatever the agent explores with. The only cap is the
 * token budget's.
 */
export async function completeText(
  deps: CompletionDependencies,
  model: string | undefined,
  messages: Array<{ role: 'system' | 'user'; content: string }>,
  maxTokens?: number,
): Promise<{ text: string; usage: TokenUsage }> {
  const chosen = model ?? deps.defaultModel;
  const completion = await withHeartbeats(async (signal) => {
    try {
      const cap = maxTokens !== undefined ? { max_tokens: maxTokens } : {};
      return await deps.openai.chat.completions.create({ model: chosen, messages, ...cap }, { signal });
    } catch (error) {
      throw classifyModelError(error, { baseURL: deps.openai.baseURL, apiKey: deps.openai.apiKey, model: chosen });
    }
  });
  const text = (completion.choices[0]?.message?.content ?? '').trim();
  return { text, usage: readUsage(completion, JSON.stringify(messages).length, text.length) };
}
