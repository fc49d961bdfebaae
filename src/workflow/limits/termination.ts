import type { ResolvedConfig, StopCondition } from '../../shared/config';
import { visibleThought } from '../../shared/protocol/reasoning';
import type { ReActStep } from '../../shared/types';

/** The first phrase of `phrases` that `text` contains (case-insensitive), or null. */
export function findPhrase(text: string, phrases: readonly string[]): string | null {
  const haystack = text.toLowerCase();
  return phrases.find((phrase) => haystack.includes(phrase.toLowerCase())) ?? null;
}

/** Whether another model call may start: the iteration cap and the token budget are checked before thinking. */
export function checkBeforeThinking(
  state: { iterations: number; tokensUsed: number },
  config: ResolvedConfig,
  estimatedPromptTokens: number,
): { reason: 'max_iterations' | 'token_budget'; detail: string } | null {
  if (state.iterations >= config.maxIterations) {
    return { reason: 'max_iterations', detail: `reached the limit of ${config.maxIterations} iterations` };
  }
  if (config.tokenBudget !== undefined && state.tokensUsed + estimatedPromptTokens > config.tokenBudget) {
    return {
      reason: 'token_budget',
      detail:
        `the next model call (~${estimatedPromptTokens} prompt tokens) would exceed the budget of ` +
        `${config.tokenBudget} tokens (${state.tokensUsed} used)`,
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
  const hit = conditions.find((condition) => matches(condition, step));
  return hit ? `stop condition met: ${describeCondition(hit)}` : null;
}
