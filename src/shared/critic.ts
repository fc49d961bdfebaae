import { z } from 'zod';
import type { TokenUsage } from './types';

/** First words of the critic's system prompt; scripted models recognise critic requests by them. */
export const CRITIC_MARKER = 'You are the critic of a ReAct agent.';

/** What the critic can conclude after an observation. */
export const CRITIC_DECISIONS = [
  'CONTINUE',
  'RETRY_WITH_REFINEMENT',
  'CALL_DIFFERENT_TOOL',
  'INSUFFICIENT_DATA',
] as const;

const verdictSchema = z.object({
  decision: z.enum(CRITIC_DECISIONS),
  reasoning: z.string().min(1),
  confidence: z.number().min(0).max(1),
  refinedQuery: z.string().min(1).optional(),
});

/** The critic's judgement of the latest observation. */
export type CriticVerdict = z.infer<typeof verdictSchema>;

/** Input of the `critique` activity. */
export interface CritiqueInput {
  query: string;
  /** The latest step(s) as scratchpad text. */
  latest: string;
  summary: string | null;
  model?: string;
  /** Completion cap from the run's token budget. */
  maxTokens?: number;
}

/** Output of the `critique` activity: a verdict, or why the reply could not be read. */
export type CritiqueOutput = { verdict: CriticVerdict; usage: TokenUsage } | { malformed: string; usage: TokenUsage };

/** The critic's instructions. */
export function criticMessages(input: CritiqueInput): Array<{ role: 'system' | 'user'; content: string }> {
  return [
    {
      role: 'system',
      content:
        `${CRITIC_MARKER} Judge whether the latest observation moves the task forward. Reply with one JSON object: ` +
        '{"decision": "CONTINUE" | "RETRY_WITH_REFINEMENT" | "CALL_DIFFERENT_TOOL" | "INSUFFICIENT_DATA", ' +
        '"reasoning": "...", "confidence": 0..1, "refinedQuery": "..." (only for RETRY_WITH_REFINEMENT)}. ' +
        'CONTINUE: enough information, answer now. RETRY_WITH_REFINEMENT: same tool, better query. ' +
        'CALL_DIFFERENT_TOOL: part of the task needs another tool. INSUFFICIENT_DATA: the task cannot be completed ' +
        'with the available tools; say what is missing.',
    },
    {
      role: 'user',
      content: `Task: ${input.query}\n${input.summary ? `Summary so far: ${input.summary}\n` : ''}Latest step:\n${input.latest}`,
    },
  ];
}

/** Reads the critic's reply: the first JSON object in it, validated; anything else is reported, never thrown. */
export function parseVerdict(text: string): { verdict: CriticVerdict } | { malformed: string } {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return { malformed: 'the critic replied without a JSON object' };
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (error) {
    return {
      malformed: `the critic's JSON does not parse (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success)
    return {
      malformed: `the critic's verdict is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    };
  return { verdict: parsed.data };
}

/** The note the next thought sees. */
export function criticNote(verdict: CriticVerdict): string {
  const advice: Record<CriticVerdict['decision'], string> = {
    CONTINUE: 'You have enough information: give the final answer now.',
    RETRY_WITH_REFINEMENT: `Try the same tool again with a refined query${verdict.refinedQuery ? `: ${verdict.refinedQuery}` : '.'}`,
    CALL_DIFFERENT_TOOL: 'Part of the task needs a different tool: use it next.',
    INSUFFICIENT_DATA: 'The task cannot be completed with the available tools.',
  };
  return `Critic (${verdict.decision}, confidence ${verdict.confidence}): ${verdict.reasoning} ${advice[verdict.decision]}`;
}
