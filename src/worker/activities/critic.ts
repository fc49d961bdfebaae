import { z } from 'zod';
import {
  CRITIC_DECISIONS,
  criticMessages,
  type CriticVerdict,
  type CritiqueInput,
  type CritiqueOutput,
} from '../../shared/critic';
import { completeText, type CompletionDependencies } from './completion';
import { errorMessage } from '../../shared/errors';

// The verdict is checked here, on the worker: the workflow gets data or a reason, and never needs zod.
const verdictSchema = z.object({
  decision: z.enum(CRITIC_DECISIONS),
  reasoning: z.string().min(1),
  confidence: z.number().min(0).max(1),
  refinedQuery: z.string().min(1).optional(),
  suggestion: z.string().min(1).optional(),
});

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
      malformed: `the critic's JSON does not parse (${errorMessage(error)})`,
    };
  }
  const parsed = verdictSchema.safeParse(value);
  if (!parsed.success)
    return {
      malformed: `the critic's verdict is invalid: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    };
  return { verdict: parsed.data };
}

/** Creates the `critique` activity: the critic's JSON verdict is parsed here, so the workflow gets data or a reason. */
export function createCritique(deps: CompletionDependencies): (input: CritiqueInput) => Promise<CritiqueOutput> {
  return async function critique(input: CritiqueInput): Promise<CritiqueOutput> {
    const { text, usage } = await completeText(deps, input.model, criticMessages(input), input.maxTokens);
    return { ...parseVerdict(text), usage };
  };
}
