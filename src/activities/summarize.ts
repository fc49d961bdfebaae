import type OpenAI from 'openai';
import { summaryMessages, type SummarizeInput, type SummarizeOutput } from '../shared/summaries';
import { withHeartbeats } from './heartbeat';
import { classifyModelError } from './model-errors';
import { readUsage } from './model-reply';

/** Creates the `summarize` activity: one tool-less completion, classified like every model call. */
export function createSummarize(deps: { openai: OpenAI; defaultModel: string }): (input: SummarizeInput) => Promise<SummarizeOutput> {
  return async function summarize(input: SummarizeInput): Promise<SummarizeOutput> {
    const model = input.model ?? deps.defaultModel;
    const messages = summaryMessages(input);
    const completion = await withHeartbeats(async (signal) => {
      try {
        return await deps.openai.chat.completions.create({ model, messages }, { signal });
      } catch (error) {
        throw classifyModelError(error, { baseURL: deps.openai.baseURL, model });
      }
    });
    const summary = (completion.choices[0]?.message?.content ?? '').trim();
    return { summary, usage: readUsage(completion, JSON.stringify(messages).length, summary.length) };
  };
}
