import { describe, it, expect } from 'vitest';
import { agentConfigSchema, type StopCondition } from '../../src/shared/config';
import type { ReActAction, ReActStep } from '../../src/shared/types';
import { checkBeforeThinking, findPhrase, matchStopCondition } from '../../src/workflow/limits/termination';

const config = (limits: { maxIterations?: number; tokenBudget?: number } = {}) =>
  agentConfigSchema.parse({ limits }).limits;

function step(action: ReActAction, thought: string, observation: string | null): ReActStep {
  return {
    iteration: 1,
    thought,
    action,
    observation,
    timestamp: '2024-01-01T00:00:00.000Z',
    tokenUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
  };
}

const searchStep = step(
  { type: 'tool_call', tool: 'search', args: { query: 'x' }, callId: 'c1' },
  'I need to look up the release date.',
  'Released on 2021-03-04. Status: DONE',
);
const answerStep = step({ type: 'final_answer', answer: 'Tool search says done' }, 'Wrapping up now.', null);

describe('checkBeforeThinking', () => {
  it('allows a call while iterations remain', () => {
    expect(checkBeforeThinking({ iterations: 2, tokensUsed: 0 }, config({ maxIterations: 3 }), 100)).toBeNull();
  });

  it('stops at the iteration cap', () => {
    expect(checkBeforeThinking({ iterations: 3, tokensUsed: 0 }, config({ maxIterations: 3 }), 100)).toEqual({
      reason: 'max_iterations',
      detail: 'reached the limit of 3 iterations',
    });
  });

  it('uses the default cap of 10', () => {
    expect(checkBeforeThinking({ iterations: 9, tokensUsed: 0 }, config(), 0)).toBeNull();
    expect(checkBeforeThinking({ iterations: 10, tokensUsed: 0 }, config(), 0)?.reason).toBe('max_iterations');
  });

  it('stops when the projected prompt would exceed the token budget', () => {
    const result = checkBeforeThinking({ iterations: 1, tokensUsed: 900 }, config({ tokenBudget: 1000 }), 101);
    expect(result).toEqual({
      reason: 'token_budget',
      detail: 'the next model call (~101 prompt tokens) would exceed the budget of 1000 tokens (900 used)',
    });
  });

  it('allows a call that lands exactly on the budget', () => {
    expect(checkBeforeThinking({ iterations: 1, tokensUsed: 900 }, config({ tokenBudget: 1000 }), 100)).toBeNull();
  });

  it('stops when the budget is already spent, even for a tiny prompt', () => {
    const result = checkBeforeThinking({ iterations: 1, tokensUsed: 1000 }, config({ tokenBudget: 1000 }), 1);
    expect(result?.reason).toBe('token_budget');
  });

  it('never stops for tokens when there is no budget', () => {
    expect(checkBeforeThinking({ iterations: 0, tokensUsed: 10_000_000 }, config(), 10_000_000)).toBeNull();
  });

  it('reports the iteration cap before the budget when both are hit', () => {
    const result = checkBeforeThinking(
      { iterations: 5, tokensUsed: 5000 },
      config({ maxIterations: 5, tokenBudget: 100 }),
      50,
    );
    expect(result?.reason).toBe('max_iterations');
  });
});

describe('matchStopCondition', () => {
  const when = (...conditions: StopCondition[]) => conditions;

  it('matches tool_called on the named tool only', () => {
    expect(matchStopCondition(searchStep, when({ type: 'tool_called', tool: 'search' }))).toBe(
      'stop condition met: tool search was called',
    );
    expect(matchStopCondition(searchStep, when({ type: 'tool_called', tool: 'publish' }))).toBeNull();
  });

  it('does not take a final answer for a tool call', () => {
    expect(matchStopCondition(answerStep, when({ type: 'tool_called', tool: 'search' }))).toBeNull();
  });

  it('matches observation_contains case-insensitively', () => {
    expect(matchStopCondition(searchStep, when({ type: 'observation_contains', text: 'status: done' }))).toBe(
      'stop condition met: an observation contains "status: done"',
    );
    expect(matchStopCondition(searchStep, when({ type: 'observation_contains', text: 'failed' }))).toBeNull();
  });

  it('applies the tool filter of observation_contains', () => {
    expect(matchStopCondition(searchStep, when({ type: 'observation_contains', text: 'DONE', tool: 'search' }))).toBe(
      'stop condition met: an observation of search contains "DONE"',
    );
    expect(
      matchStopCondition(searchStep, when({ type: 'observation_contains', text: 'DONE', tool: 'calculator' })),
    ).toBeNull();
  });

  it('does not match observation_contains on a step without an observation', () => {
    expect(matchStopCondition(answerStep, when({ type: 'observation_contains', text: 'done' }))).toBeNull();
  });

  it('matches thought_contains case-insensitively', () => {
    expect(matchStopCondition(searchStep, when({ type: 'thought_contains', text: 'RELEASE DATE' }))).toBe(
      'stop condition met: a thought contains "RELEASE DATE"',
    );
    expect(matchStopCondition(answerStep, when({ type: 'thought_contains', text: 'wrapping up' }))).toBe(
      'stop condition met: a thought contains "wrapping up"',
    );
    expect(matchStopCondition(searchStep, when({ type: 'thought_contains', text: 'weather' }))).toBeNull();
  });

  it('reports the first condition that matches', () => {
    const conditions = when(
      { type: 'tool_called', tool: 'publish' },
      { type: 'thought_contains', text: 'look up' },
      { type: 'tool_called', tool: 'search' },
    );
    expect(matchStopCondition(searchStep, conditions)).toBe('stop condition met: a thought contains "look up"');
  });

  it('matches nothing without conditions', () => {
    expect(matchStopCondition(searchStep, [])).toBeNull();
  });
});

describe('findPhrase', () => {
  it('finds a phrase case-insensitively and returns it as configured', () => {
    expect(findPhrase('The task is COMPLETE.', ['task is complete'])).toBe('task is complete');
  });

  it('returns the first configured phrase the text contains', () => {
    expect(findPhrase('cannot proceed; giving up', ['giving up', 'cannot proceed'])).toBe('giving up');
  });

  it('returns null when no phrase occurs', () => {
    expect(findPhrase('all good', ['error', 'failed'])).toBeNull();
    expect(findPhrase('anything', [])).toBeNull();
  });
});
