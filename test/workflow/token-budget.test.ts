import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../../src/testing';
import { useHarness } from '../support/harness';

const harness = useHarness();

/** A model that reasons at length and keeps calling the calculator: it would use any budget it is given. */
const verbose = (_request: unknown, index: number): ScriptedTurn => ({
  thought: `Step ${index}: ${'I should double-check every partial result before going on, because the total matters. '.repeat(6)}`,
  toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
});

describe('limits.tokenBudget is a hard cap', () => {
  it('a budget of 1000 with long replies ends at token_budget without going over, and says what became of the final answer', async () => {
    const run = await harness.start(verbose, 'add the numbers', { limits: { tokenBudget: 1000, maxIterations: 50 } });
    const result = await run.result();
    expect(result.terminationReason).toBe('token_budget');
    expect(result.tokenUsage.totalTokens).toBeLessThanOrEqual(1000);
    expect(result.trace.forcedFinalAnswer?.status).toMatch(/^(given|skipped)$/);
    // Every call went out with the cap that keeps it inside the budget.
    const requests = harness.model.requests(run.modelName);
    expect(requests.length).toBeGreaterThan(1);
    for (const request of requests) expect(request.max_tokens).toEqual(expect.any(Number));
    if (result.trace.forcedFinalAnswer?.status === 'given') {
      expect(result.finalAnswer).not.toBeNull();
      expect(result.trace.steps.at(-1)).toMatchObject({ forced: true });
    }
  });

  it('keeps room for the forced final answer: the loop stops early enough that the answer is given', async () => {
    const run = await harness.start(
      (request, index) =>
        request.tools === undefined ? { answer: 'Partial: I got as far as the first sums.' } : verbose(request, index),
      'add the numbers',
      { limits: { tokenBudget: 3000, maxIterations: 50 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('token_budget');
    expect(result.trace.forcedFinalAnswer).toEqual({ status: 'given' });
    expect(result.finalAnswer).toBe('Partial: I got as far as the first sums.');
    expect(result.tokenUsage.totalTokens).toBeLessThanOrEqual(3000);
  });

  it('skips the forced final answer when even that would not fit, and says so in the result', async () => {
    // The first reply alone reports more than the budget leaves room for: nothing is left for an answer.
    const run = await harness.start(
      [{ ...verbose({}, 0), usage: { promptTokens: 300, completionTokens: 600 } }],
      'add the numbers',
      { limits: { tokenBudget: 1000 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('token_budget');
    expect(result.trace.forcedFinalAnswer?.status).toBe('skipped');
    expect(result.trace.forcedFinalAnswer?.reason).toContain('would not fit in the token budget');
    expect(result.trace.terminationDetail).toContain('the forced final answer was skipped');
    expect(result.finalAnswer).toBeNull();
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
    expect(result.tokenUsage.totalTokens).toBe(900);
  });
});
