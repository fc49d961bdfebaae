import { describe, expect, it } from 'vitest';
import { continueInput, forkInput, ForkRefusedError, type ParentRun } from '../../src/client/fork';
import { validateAgentConfig } from '../../src/shared/agent-config';
import type { ResolvedConfig } from '../../src/shared/config';
import type { ReActStep, ReActTrace } from '../../src/shared/types';

function resolved(config: unknown): ResolvedConfig {
  const checked = validateAgentConfig(config);
  if (!checked.ok) throw new Error(checked.message);
  return checked.config;
}

const usage = (totalTokens: number) => ({ promptTokens: totalTokens - 10, completionTokens: 10, totalTokens });
const call = (iteration: number, position = 1, extra: Partial<ReActStep> = {}): ReActStep => ({
  iteration,
  thought: `Thought ${iteration}`,
  action: { type: 'tool_call', tool: 'calculator', args: { n: iteration }, callId: `c${iteration}-${position}` },
  observation: `result ${iteration}`,
  timestamp: '2026-11-23T00:00:00.000Z',
  tokenUsage: usage(position === 1 ? 100 : 10),
  ...extra,
});

function parent(steps: ReActStep[], overrides: Partial<ParentRun> = {}, trace: Partial<ReActTrace> = {}): ParentRun {
  return {
    workflowId: 'parent',
    runId: 'run-9',
    workflowType: 'reactAgentWorkflow',
    taskQueue: 'q',
    status: 'COMPLETED',
    input: { query: 'add', config: { history: { carrySteps: 2 }, limits: { maxIterations: 5 } } },
    config: resolved({ history: { carrySteps: 2 }, limits: { maxIterations: 5 } }),
    runOffsets: [0],
    trace: {
      steps,
      finalResult: null,
      terminationReason: 'max_iterations',
      totalIterations: 5,
      totalTokens: 900,
      toolUsage: { calculator: 5 },
      toolRuns: { calculator: 5 },
      errorHistory: [
        { iteration: 2, kind: 'invalid_thought', message: 'too short', timestamp: '' },
        { iteration: 4, kind: 'tool_error', message: 'boom', timestamp: '' },
      ],
      rejectedThoughts: 1,
      terminationDetail: null,
      run: 1,
      stepsInEarlierRuns: 0,
      summary: null,
      ...trace,
    },
    ...overrides,
  };
}

describe('forkInput', () => {
  const steps = [call(1), call(2), call(3), call(3, 2), call(4), call(5)];

  it("takes the steps of iterations 1..k, the counters as they stood, and the parent's config with changes", () => {
    const run = parent(steps);
    const input = forkInput(run, { fromStep: 3, config: { model: 'other', limits: { tokenBudget: 50 } } });
    expect(input.config).toEqual({ ...run.config, model: 'other', limits: { ...run.config.limits, tokenBudget: 50 } });
    expect(input.seed?.steps.map((step) => step.action.type === 'tool_call' && step.action.callId)).toEqual([
      'c1-1',
      'c2-1',
      'c3-1',
      'c3-2',
    ]);
    expect(input.seed?.totals).toMatchObject({
      iterations: 3,
      toolUsage: { calculator: 4 },
      rejectedThoughts: 1,
      errorHistory: [expect.objectContaining({ kind: 'invalid_thought' })],
    });
    expect(input.seed?.lineage).toEqual({
      kind: 'fork',
      workflowId: 'parent',
      runId: 'run-9',
      step: 3,
      observationEdited: false,
    });
  });

  it("shows the model what the parent's did: after a hand-over, the carried steps and the run's own", () => {
    // Runs of 2 entries each: step 4 (entry 5, as step 3 made two calls) is in the third run, handed entries 3-4.
    const chain = parent(steps, { runOffsets: [0, 2, 4] });
    expect(forkInput(chain, { fromStep: 4 }).seed?.windowFrom).toBe(2);
    expect(forkInput(chain, { fromStep: 1 }).seed?.windowFrom).toBe(0);
  });

  it('replaces one observation, and refuses what it cannot do with a reason', () => {
    const edited = forkInput(parent(steps), { fromStep: 2, observation: 'closed' }).seed?.steps[1];
    expect(edited).toMatchObject({ observation: 'closed', isError: false, edited: true });
    const refusal = (options: Parameters<typeof forkInput>[1], run = parent(steps)) => {
      try {
        forkInput(run, options);
      } catch (error) {
        expect(error).toBeInstanceOf(ForkRefusedError);
        return (error as Error).message;
      }
      return 'not refused';
    };
    expect(refusal({ fromStep: 7 })).toBe("--from-step must be one of the run's steps (1-5), got 7");
    expect(refusal({ fromStep: 3, observation: 'x' })).toMatch(/made 2 parallel calls/);
    const conversation = parent(steps, { config: resolved({ conversation: { idleTimeout: '5m' } }) });
    expect(refusal({ fromStep: 1 }, conversation)).toMatch(/forking a conversation is not supported/);
    const answered = parent([...steps, { ...call(6), action: { type: 'final_answer', answer: 'done' } }]);
    expect(refusal({ fromStep: 6 }, answered)).toMatch(/is the run's final answer/);
  });
});

describe('continueInput', () => {
  const steps = [call(1), call(2), { ...call(3), forced: true, action: { type: 'final_answer', answer: 'partial' } }];

  it("carries every step but the forced answer and the parent's totals, with the limit raised", () => {
    const input = continueInput(parent(steps as ReActStep[]), 'max_iterations', { maxIterations: 9 });
    expect(input.config.limits.maxIterations).toBe(9);
    expect(input.seed.steps).toHaveLength(2);
    expect(input.seed.totals).toMatchObject({ iterations: 5, toolUsage: { calculator: 5 }, rejectedThoughts: 1 });
    expect(input.seed.totals.usage.totalTokens).toBe(900);
  });

  it('refuses a limit that is not raised past what the run used, and a run that did not stop at one', () => {
    expect(() => continueInput(parent(steps as ReActStep[]), 'max_iterations', { maxIterations: 5 })).toThrow(
      /used 5 iterations/,
    );
    expect(() => continueInput(parent(steps as ReActStep[]), 'token_budget', { tokenBudget: 800 })).toThrow(
      /used 900 tokens/,
    );
    expect(() => continueInput(parent(steps as ReActStep[], { status: 'RUNNING' }), null, {})).toThrow(/is running/);
  });
});

describe('a long parent (N15)', () => {
  // 300 steps of 18 KB: a 5.5 MB stitched trace, over the 4 MB a start request may be.
  const long = Array.from({ length: 300 }, (_, index) => call(index + 1, 1, { observation: 'x'.repeat(18_000) }));

  it('is continued and forked with a seed clipped to the archive size, every step kept and marked', () => {
    const continued = continueInput(parent(long, {}, { totalIterations: 300 }), 'max_iterations', {
      maxIterations: 310,
    });
    const forked = forkInput(parent(long, {}, { totalIterations: 300 }), { fromStep: 299 });
    for (const input of [continued, forked]) {
      const bytes = Buffer.byteLength(JSON.stringify(input));
      expect(bytes).toBeLessThan(1_100_000);
      expect(input.seed?.steps.length).toBeGreaterThanOrEqual(299);
      expect(input.seed?.steps.at(-1)?.observation).toMatch(/^\[clipped from 18000 characters in the run's seed\]/);
    }
  });
});
