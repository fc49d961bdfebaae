import type { TokenUsage } from './cost';

/** First words of the critic's system prompt; scripted models recognise critic requests by them. */
export const CRITIC_MARKER = 'You are the critic of a ReAct agent.';

/** What the critic can conclude after an observation. */
export const CRITIC_DECISIONS = [
  'CONTINUE',
  'RETRY_WITH_REFINEMENT',
  'CALL_DIFFERENT_TOOL',
  'INSUFFICIENT_DATA',
] as const;

/** The critic's judgement of the latest observation. */
export interface CriticVerdict {
  decision: (typeof CRITIC_DECISIONS)[number];
  reasoning: string;
  confidence: number;
  refinedQuery?: string | undefined;
  /** For CALL_DIFFERENT_TOOL: which tool to use, and what to ask it. */
  suggestion?: string | undefined;
}

/** What the run does with each verdict; 'note' only shows it to the next thought. */
export interface CriticActions {
  /** CONTINUE, the critic's "every part of the task is answered": 'answer' asks for the final answer, no tools. */
  onContinue: 'answer' | 'note';
  /** RETRY_WITH_REFINEMENT: 'reissue' runs the latest call again with the refined query as its next step. */
  onRetry: 'reissue' | 'note';
  /** CALL_DIFFERENT_TOOL: 'steer' gives the critic's suggestion to the next thought as feedback. */
  onDifferentTool: 'steer' | 'note';
  /** INSUFFICIENT_DATA: 'stop' ends the run with `failure`. */
  onInsufficientData: 'stop' | 'note';
}

/** What `critic: true` means: act on every verdict. */
export const DEFAULT_CRITIC_ACTIONS: CriticActions = {
  onContinue: 'answer',
  onRetry: 'reissue',
  onDifferentTool: 'steer',
  onInsufficientData: 'stop',
};

/** The actions a `critic` setting stands for; null when the critic is off. */
export function criticActions(setting: boolean | Partial<CriticActions>): CriticActions | null {
  if (setting === false) return null;
  if (setting === true) return DEFAULT_CRITIC_ACTIONS;
  // A key given as undefined keeps its default, as a key left out does.
  const chosen = Object.entries(setting).filter(([, action]) => action !== undefined);
  return { ...DEFAULT_CRITIC_ACTIONS, ...(Object.fromEntries(chosen) as Partial<CriticActions>) };
}

/** Input of the `critique` activity. */
export interface CritiqueInput {
  query: string;
  /** The latest step(s) as scratchpad text. */
  latest: string;
  /**
   * Earlier steps' calls and observations as scratchpad text, bounded ('' when there are none). With it the critic
   * judges the whole task, every part of it, not the latest observation alone.
   */
  findings: string;
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
        `${CRITIC_MARKER} Judge the task as a whole from everything found so far: is every part of it answered? ` +
        'Reply with one JSON object: ' +
        '{"decision": "CONTINUE" | "RETRY_WITH_REFINEMENT" | "CALL_DIFFERENT_TOOL" | "INSUFFICIENT_DATA", ' +
        '"reasoning": "...", "confidence": 0..1, "refinedQuery": "..." (only for RETRY_WITH_REFINEMENT), ' +
        '"suggestion": "..." (only for CALL_DIFFERENT_TOOL: which tool, and what to ask it)}. ' +
        'CONTINUE: every part of the task is answered by the findings, give the final answer now. ' +
        'RETRY_WITH_REFINEMENT: the latest call was the right tool with a poor query; refinedQuery replaces it. ' +
        'CALL_DIFFERENT_TOOL: a part of the task is still unanswered and needs another tool. ' +
        'INSUFFICIENT_DATA: the task cannot be completed with the available tools; say what is missing.',
    },
    {
      role: 'user',
      content:
        `Task: ${input.query}\n${input.summary ? `Summary so far: ${input.summary}\n` : ''}` +
        `${input.findings ? `Earlier findings:\n${input.findings}\n` : ''}Latest step:\n${input.latest}`,
    },
  ];
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

/** The feedback a steering CALL_DIFFERENT_TOOL verdict gives the next thought: the critic's suggestion first. */
export function criticSteer(verdict: CriticVerdict): string {
  const why = verdict.suggestion ? `${verdict.suggestion} (${verdict.reasoning})` : verdict.reasoning;
  return `The critic says a part of the task still needs a different tool: ${why} Use that tool next.`;
}
