import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness';
import { abortedCalls } from '../support/test-tools';

const harness = useHarness();

const calc = (expression: string) => ({
  thought: `I still need to evaluate ${expression} with the calculator to make progress.`,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

describe('termination reasons', () => {
  it('max_iterations: stops at the cap, then a forced final answer explains why', async () => {
    const run = await harness.start(
      [calc('1+1'), calc('2+2'), { answer: 'So far: 1+1=2 and 2+2=4; I hit the iteration limit.' }],
      'q',
      { limits: { maxIterations: 2 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('max_iterations');
    expect(result.success).toBe(false);
    expect(result.finalAnswer).toBe('So far: 1+1=2 and 2+2=4; I hit the iteration limit.');
    expect(result.trace.totalIterations).toBe(2);
    expect(result.trace.steps.at(-1)).toMatchObject({ forced: true, action: { type: 'final_answer' } });
    expect(result.trace.terminationDetail).toContain('limit of 2 iterations');
    // The forced call offers no tools and tells the model why it must stop.
    const forced = harness.model.requests(run.modelName)[2];
    expect(forced?.tools).toBeUndefined();
    expect(JSON.stringify(forced?.messages.at(-1))).toContain('limit of 2 iterations');
  });

  it('max_iterations without forceFinalAnswer keeps the partial trace and makes no extra call', async () => {
    const run = await harness.start([calc('1+1')], 'q', { forceFinalAnswer: false, limits: { maxIterations: 1 } });
    const result = await run.result();
    expect(result.terminationReason).toBe('max_iterations');
    expect(result.finalAnswer).toBeNull();
    expect(result.trace.steps).toHaveLength(1);
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
  });

  it('stalled: the same tool with the same normalised arguments limits.stallThreshold times in a row', async () => {
    const run = await harness.start(
      [calc('2 + 2'), calc(' 2 + 2'), calc('2 + 2 '), { answer: 'I kept repeating 2 + 2 = 4.' }],
      'q',
      { forceFinalAnswer: true, limits: { stallThreshold: 3 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('stalled');
    expect(result.trace.terminationDetail).toBe(
      'repeat: the same calls in 3 iterations in a row: calculator {"expression":"2 + 2 "}',
    );
    expect(result.trace.steps.filter((step) => step.action.type === 'tool_call')).toHaveLength(3);
    expect(result.finalAnswer).toBe('I kept repeating 2 + 2 = 4.');
  });

  it('stalled counts replies: identical parallel calls in one reply are not a stall', async () => {
    const triple = {
      ...calc('2 + 2'),
      toolCalls: [1, 2, 3].map(() => ({ name: 'calculator', args: { expression: '2 + 2' } })),
    };
    const run = await harness.start([triple, { answer: 'Three identical checks all gave 4.' }], 'q', {
      limits: { stallThreshold: 3 },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.trace.terminationDetail).toBe('the model gave a final answer');
    expect(result.trace.steps.filter((step) => step.action.type === 'tool_call')).toHaveLength(3);
    expect(result.finalAnswer).toBe('Three identical checks all gave 4.');
  });

  it('stalled: limits.stallThreshold replies in a row with the same set of calls, in any order', async () => {
    const reply = (...expressions: string[]) => ({
      ...calc(expressions.join(' and ')),
      toolCalls: expressions.map((expression) => ({ name: 'calculator', args: { expression } })),
    });
    const run = await harness.start(
      [
        reply('2 + 2', '3 + 3'),
        reply('3 + 3 ', '2 + 2'),
        reply('2 + 2', '2 + 2', '3 + 3'),
        { answer: 'I kept repeating the same sums.' },
      ],
      'q',
      { limits: { stallThreshold: 3 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('stalled');
    expect(result.trace.terminationDetail).toBe(
      'repeat: the same calls in 3 iterations in a row: calculator {"expression":"2 + 2"}, calculator {"expression":"3 + 3"}',
    );
    expect(result.trace.totalIterations).toBe(3);
    expect(result.finalAnswer).toBe('I kept repeating the same sums.');
  });

  it('token_budget: stops before a call that would exceed the budget', async () => {
    const big = { ...calc('3*3'), usage: { promptTokens: 900, completionTokens: 50 } };
    const run = await harness.start([big, calc('4*4')], 'q', {
      forceFinalAnswer: false,
      limits: { tokenBudget: 1000 },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('token_budget');
    expect(result.tokenUsage.totalTokens).toBe(950);
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
    expect(result.trace.terminationDetail).toContain('budget of 1000 tokens (950 used)');
  });

  it('timeout: a workflow timer cancels the in-flight tool and the run still answers', async () => {
    const run = await harness.start(
      [
        {
          thought: 'This tool takes a long time but it is the only source of the data.',
          toolCalls: [{ name: 'wait_forever', args: {} }],
        },
        { answer: 'I ran out of time waiting for the slow tool.' },
      ],
      'q',
      { limits: { timeoutSeconds: 2 } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('timeout');
    expect(result.finalAnswer).toBe('I ran out of time waiting for the slow tool.');
    expect(result.trace.terminationDetail).toContain('2s');
    const call = result.trace.steps[0]?.action;
    expect(call?.type === 'tool_call' && abortedCalls.has(`${run.firstRunId}:${call.callId}`)).toBe(true);
  });

  it('timeout: a forced answer that hangs is cut short at the end of its slice, so the budget is a cap', async () => {
    const started = Date.now();
    const run = await harness.start(
      [
        {
          thought: 'This tool takes a long time but it is the only source of the data.',
          toolCalls: [{ name: 'wait_forever', args: {} }],
        },
        // The forced answer hangs far past the budget (the slice for a 2 s budget is 5 s).
        { answer: 'Too late to matter.', delayMs: 40_000 },
      ],
      'q',
      { limits: { timeoutSeconds: 2 } },
    );
    const result = await run.result();
    const elapsedMs = Date.now() - started;
    expect(result.terminationReason).toBe('timeout');
    expect(result.finalAnswer).toBeNull();
    expect(result.trace.forcedFinalAnswer?.status).toBe('cut_short');
    expect(result.trace.terminationDetail).toContain('forced final answer was cut short');
    // The budget (2 s) plus the slice (5 s), with room for a loaded dev server; the hang alone would take 40 s.
    expect(elapsedMs).toBeLessThan(15_000);
  });

  it('failure: a failure phrase in the answer ends the run as failed', async () => {
    const run = await harness.start([{ answer: 'I cannot find this information anywhere.' }], 'q', {
      stopWhen: [{ type: 'thought_contains', text: 'cannot find', outcome: 'failure' }],
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('failure');
    expect(result.success).toBe(false);
    expect(result.finalAnswer).toBe('I cannot find this information anywhere.');
    expect(harness.model.requests(run.modelName)).toHaveLength(1); // the answer exists: no forced call
  });

  it('success: a success phrase in a thought ends the run with that thought as the answer', async () => {
    const run = await harness.start(
      [
        {
          thought: 'TASK COMPLETE: the report was already filed yesterday.',
          toolCalls: [{ name: 'calculator', args: { expression: '1' } }],
        },
      ],
      'q',
      { stopWhen: [{ type: 'thought_contains', text: 'task complete', outcome: 'success' }] },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('TASK COMPLETE: the report was already filed yesterday.');
    expect(result.trace.toolUsage).toEqual({});
  });

  it('custom: a declarative stopWhen condition', async () => {
    const run = await harness.start([calc('10/4'), { answer: 'Stopped once the result showed 2.5.' }], 'q', {
      stopWhen: [{ type: 'observation_contains', text: '2.5', tool: 'calculator' }],
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('custom');
    expect(result.trace.terminationDetail).toBe('stop condition met: an observation of calculator contains "2.5"');
    expect(result.finalAnswer).toBe('Stopped once the result showed 2.5.');
  });
});
