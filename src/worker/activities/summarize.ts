import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../../shared/context-windows';
import { CHARS_PER_TOKEN } from '../../shared/observation';
import { summaryMessages, type SummarizeInput, type SummarizeOutput } from '../../shared/summaries';
import { addUsage, ZERO_USAGE } from '../../shared/cost';
import { completeText, type CompletionDependencies } from './completion';

/**
 * Share of the summariser's context window one part of a long result may fill: the rest holds the instructions, the
 * task and the summary it writes.
 */
const PART_SHARE = 0.5;

/** Creates the `summarize` activity: the running summary, or a summary of one long observation. */
export function createSummarize(deps: CompletionDependencies): (input: SummarizeInput) => Promise<SummarizeOutput> {
  return async function summarize(input: SummarizeInput): Promise<SummarizeOutput> {
    const parts = input.kind === 'observation' ? partsOf(input.text, partChars(input.model ?? deps.defaultModel)) : [];
    if (parts.length <= 1) {
      const { text, usage } = await completeText(deps, input.model, summaryMessages(input), input.maxTokens);
      return { summary: text, usage };
    }
    // Larger than the summariser's window: each part summarised, then the part summaries summarised together, so a
    // fact near the end of the result reaches the summary as surely as one near the start.
    let usage = ZERO_USAGE;
    const summaries: string[] = [];
    for (const [index, part] of parts.entries()) {
      const partInput = { ...input, text: `[part ${index + 1} of ${parts.length}]\n${part}` };
      const done = await completeText(deps, input.model, summaryMessages(partInput), input.maxTokens);
      summaries.push(done.text);
      usage = addUsage(usage, done.usage);
    }
    const joined = { ...input, text: summaries.map((text, index) => `Part ${index + 1}: ${text}`).join('\n\n') };
    const done = await completeText(deps, input.model, summaryMessages(joined), input.maxTokens);
    return { summary: done.text, usage: addUsage(usage, done.usage) };
  };
}

function partChars(model: string): number {
  const window = knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW;
  return Math.floor(window * PART_SHARE * CHARS_PER_TOKEN);
}

/** The text in parts of at most `size` characters, cut at a line break where one is near. */
function partsOf(text: string, size: number): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    const newline = text.lastIndexOf('\n', end);
    if (end < text.length && newline > start + size / 2) end = newline + 1;
    // Never between the halves of a surrogate pair: a lone half is not text a server accepts.
    else if (end < text.length && /[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1;
    parts.push(text.slice(start, end));
    start = end;
  }
  return parts;
}
