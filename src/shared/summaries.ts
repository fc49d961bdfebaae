import type { TokenUsage } from './cost';
import type { SamplingRequest } from './tool-protocol';

/** First line of the summariser's system prompts; scripted models recognise summary requests by it. */
export const SUMMARIZER_MARKER = "You condense an agent's work.";

/**
 * Input of the `summarize` activity, the run's helper call to its model: a summary, or the text an MCP server asked
 * the run's model for while a call of its tools ran (`sampling`, sent as the server wrote it).
 */
export type SummarizeInput = (
  | { kind: 'conversation'; query: string; previousSummary: string | null; steps: string }
  | { kind: 'observation'; query: string; call: string; text: string }
  | { kind: 'sampling'; query: string; request: SamplingRequest }
) & { model?: string; /** Completion cap from the run's token budget. */ maxTokens?: number };

/** Output of the `summarize` activity. */
export interface SummarizeOutput {
  summary: string;
  usage: TokenUsage;
}

/** The chat messages of a summary request. */
export function summaryMessages(
  input: SummarizeInput,
): Array<{ role: 'system' | 'user' | 'assistant'; content: string }> {
  if (input.kind === 'sampling') {
    const { systemPrompt, messages } = input.request;
    return [
      ...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []),
      ...messages.map((message) => ({ role: message.role, content: message.text })),
    ];
  }
  if (input.kind === 'conversation') {
    return [
      {
        role: 'system',
        content:
          `${SUMMARIZER_MARKER} Write the running summary of an agent working on a task, under these headings: ` +
          'Objective; Actions taken; Key observations (keep every fact, number, name and identifier); Current state ' +
          'and next step. Stay under 300 words.',
      },
      {
        role: 'user',
        content: `Task: ${input.query}\n\nPrevious summary:\n${input.previousSummary ?? '(none)'}\n\nNew steps:\n${input.steps}`,
      },
    ];
  }
  return [
    {
      role: 'system',
      content:
        `${SUMMARIZER_MARKER} Summarise one tool result for the task, keeping every fact, number, name and ` +
        'identifier the task may need. Stay under 200 words.',
    },
    { role: 'user', content: `Task: ${input.query}\nCall: ${input.call}\nResult:\n${input.text}` },
  ];
}
