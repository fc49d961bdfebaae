import type { StopCondition } from '../../shared/config';
import type { BudgetLimits } from '../../shared/budget';
import { visibleThought } from '../../shared/protocol/reasoning';
import type { ReActStep } from '../../shared/types';

/** The first phrase of `phrases` that `text` contains (case-insensitive), or null. */
export function findPhrase(text: string, phrases: readonly string[]): string | null {
  const haystack = text.toLowerCase();
  return phrases.find((phrase) => haystack.includes(phrase.toLowerCase())) ?? null;
}

/** The texts of the `thought_contains` stops that end the run with `outcome`. */
export function phrasesOf(conditions: readonly StopCondition[], outcome: 'success' | 'failure'): string[] {
  return conditions.flatMap((c) => (c.type === 'thought_contains' && c.outcome === outcome ? [c.text] : []));
}

/** Whether another model call may start: the iteration cap and the token budget are checked before thinking. */
export function checkBeforeThinking(
  state: { iterations: number; tokensUsed: number },
  limits: Pick<BudgetLimits, 'maxIterations' | 'tokenBudget'>,
  estimatedPromptTokens: number,
): { reason: 'max_iterations' | 'token_budget'; detail: string } | null {
  if (state.iterations >= limits.maxIterations) {
    return { reason: 'max_iterations', detail: `reached the limit of ${limits.maxIterations} iterations` };
  }
  if (limits.tokenBudget !== undefined && state.tokensUsed + estimatedPromptTokens > limits.tokenBudget) {
    return {
      reason: 'token_budget',
      detail:
        `the next model call (~${estimatedPromptTokens} prompt tokens) would exceed the budget of ` +
        `${limits.tokenBudget} tokens (${state.tokensUsed} used)`,
    };
  }
  return null;
}

function describeCondition(condition: StopCondition): string {
  switch (condition.type) {
    case 'tool_called':
      return `tool ${condition.tool} was called`;
    case 'observation_contains':
      return `an observation${condition.tool ? ` of ${condition.tool}` : ''} contains "${condition.text}"`;
    case 'thought_contains':
      return `a thought contains "${condition.text}"`;
  }
}

function matches(condition: StopCondition, step: ReActStep): boolean {
  const tool = step.action.type === 'tool_call' ? step.action.tool : null;
  switch (condition.type) {
    case 'tool_called':
      // A refused or failed call did not happen in any useful sense: only a call that ran counts.
      return tool === condition.tool && step.isError !== true;
    case 'observation_contains':
      return (
        step.observation !== null &&
        (condition.tool === undefined || condition.tool === tool) &&
        step.observation.toLowerCase().includes(condition.text.toLowerCase())
      );
    case 'thought_contains':
      return visibleThought(step.thought, step.reasoningChars).toLowerCase().includes(condition.text.toLowerCase());
  }
}

/** The custom stop condition a recorded step satisfies, described for the trace, or null. */
export function matchStopCondition(step: ReActStep, conditions: readonly StopCondition[]): string | null {
  // A stop with an outcome of its own ends the run from the thought itself (react-agent.ts), not as `custom`.
  const custom = conditions.filter((c) => c.type !== 'thought_contains' || (c.outcome ?? 'custom') === 'custom');
  const hit = custom.find((condition) => matches(condition, step));
  return hit ? `stop condition met: ${describeCondition(hit)}` : null;
}
