import { summaryMessages, type SummarizeInput, type SummarizeOutput } from '../../shared/summaries';
import { completeText, type CompletionDependencies } from './completion';

/** Creates the `summarize` activity: the running summary, or a summary of one long observation. */
export function createSummarize(deps: CompletionDependencies): (input: SummarizeInput) => Promise<SummarizeOutput> {
  return async function summarize(input: SummarizeInput): Promise<SummarizeOutput> {
    const { text, usage } = await completeText(deps, input.model, summaryMessages(input), input.maxTokens);
    return { summary: text, usage };
  };
}
