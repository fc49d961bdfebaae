import { describe, expect, it } from 'vitest';
import { validateAgentConfig } from '../../src/shared/agent-config';
import { addTokens } from '../../src/workflow/record/run-counters';
import { createRunState } from '../../src/workflow/record/run-state';
import {
  allowance,
  completionCap,
  learnPromptRatio,
  loopCallAllowance,
  MIN_COMPLETION_TOKENS,
} from '../../src/workflow/limits/token-budget';

function state({ tokenBudget, forceFinalAnswer }: { tokenBudget?: number; forceFinalAnswer?: boolean }, used = 0) {
  const validation = validateAgentConfig({ limits: { tokenBudget }, forceFinalAnswer });
  if (!validation.ok) throw new Error(validation.message);
  const run = createRunState({
    query: 'q',
    config: validation.config,
    terms: { modelCalls: 'activity', runAhead: true, pricing: { model: 'm', price: null } },
    workflowId: 'wf',
    nowMs: 0,
  });
  addTokens(run.counters, { promptTokens: used, completionTokens: 0, totalTokens: used });
  return run;
}

describe('token budget allowance', () => {
  it('caps the completion at what the budget leaves after the prompt and the reserve', () => {
    expect(allowance(state({ tokenBudget: 1000 }, 200), 300, 100)).toEqual({ maxTokens: 400 });
    expect(allowance(state({ tokenBudget: 1000 }, 200), 300)).toEqual({ maxTokens: 500 });
  });

  it('refuses a call that would leave less than the minimum reply, naming the numbers', () => {
    const refused = allowance(state({ tokenBudget: 1000 }, 900), 40);
    expect(refused).toEqual({
      refused: `the next model call (~40 prompt tokens and at least ${MIN_COMPLETION_TOKENS} for the reply) would exceed the budget of 1000 tokens (900 used)`,
    });
    expect(allowance(state({ tokenBudget: 1000 }, 1000 - 40 - MIN_COMPLETION_TOKENS), 40)).toEqual({
      maxTokens: MIN_COMPLETION_TOKENS,
    });
  });

  it('sets no cap without a budget', () => {
    expect(allowance(state({}), 10_000)).toEqual({});
  });

  it('keeps room for the forced final answer only when the run will force one', () => {
    const messages = [{ role: 'user', content: 'x'.repeat(396) }]; // ~100 estimated tokens as JSON
    const withAnswer = loopCallAllowance(state({ tokenBudget: 1000 }), messages);
    const without = loopCallAllowance(state({ tokenBudget: 1000, forceFinalAnswer: false }), messages);
    const cap = (allowed: typeof without): number =>
      'maxTokens' in allowed && allowed.maxTokens !== undefined ? allowed.maxTokens : NaN;
    expect(cap(without) - cap(withAnswer)).toBeGreaterThan(256);
  });

  it('learns from reported usage when the character estimate runs low, never below it', () => {
    const run = state({ tokenBudget: 1000 });
    const request = [{ role: 'user', content: 'x'.repeat(396) }];
    learnPromptRatio(run, request, 300);
    expect(run.prompt.tokenRatio).toBeCloseTo(300 / 107, 5); // the JSON of the request is 428 characters, ~107 tokens
    learnPromptRatio(run, request, 10);
    expect(run.prompt.tokenRatio).toBe(1);
  });
});

describe('completion cap of a thinking call', () => {
  it("is the smaller of the config's maxTokens and the budget's allowance, either of which may be unset", () => {
    expect(completionCap(undefined, undefined)).toBeUndefined();
    expect(completionCap(300, undefined)).toBe(300);
    expect(completionCap(undefined, 800)).toBe(800);
    expect(completionCap(300, 800)).toBe(300);
    expect(completionCap(900, 800)).toBe(800);
  });
});
