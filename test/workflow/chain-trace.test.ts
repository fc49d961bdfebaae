import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../../src/client';
import { chainRunIds } from '../../src/client/run-chain';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import type { AgentWorkflowInput, ReActStep } from '../../src/shared/types';
import { useHarness } from '../support/harness';

const harness = useHarness();
const thought = 'Each sum needs the calculator, so I call it once more.';
const calc = (expression: string): ScriptedTurn => ({
  thought,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

/** Fails instead of hanging when a call waits for a worker that is not there. */
function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} gave no answer within ${ms} ms with no worker running`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const summary = (steps: readonly ReActStep[]) =>
  steps.map((step) => [
    step.iteration,
    step.action.type === 'tool_call' ? step.action.args : step.action.type,
    step.observation,
  ]);

describe('the trace of a finished continue-as-new chain', () => {
  it('is read from history alone: result and getTrace return every step of every run with no worker', async () => {
    const run = await harness.start(
      [calc('1+1'), calc('2+2'), calc('3+3'), calc('4+4'), { answer: 'done adding' }],
      'add four times',
      { history: { maxStepsPerRun: 2 } },
    );
    const expected = [
      [1, { expression: '1+1' }, '{"expression":"1+1","result":2}'],
      [2, { expression: '2+2' }, '{"expression":"2+2","result":4}'],
      [3, { expression: '3+3' }, '{"expression":"3+3","result":6}'],
      [4, { expression: '4+4' }, '{"expression":"4+4","result":8}'],
      [5, 'final_answer', null],
    ];
    const live = await run.result();
    expect(live.trace.run).toBe(3);
    expect(summary(live.trace.steps)).toEqual(expected);

    await harness.restartWorker(async () => {
      const result = await within(harness.agents.handle(run.workflowId).result(), 'result');
      expect(summary(result.trace.steps)).toEqual(expected);
      const trace = await within(harness.agents.handle(run.workflowId).getTrace(), 'getTrace');
      expect(summary(trace.steps)).toEqual(expected);
      expect(trace.terminationReason).toBe('success');
    });
  });

  it('of a chain that failed is read from history too: getTrace and the error of result carry every step', async () => {
    const run = await harness.start(
      [calc('1+1'), calc('2+2'), calc('3+3'), { status: 401, errorMessage: 'Incorrect API key provided' }],
      'q',
      { history: { maxStepsPerRun: 2 } },
    );
    const expected = [
      [1, { expression: '1+1' }, '{"expression":"1+1","result":2}'],
      [2, { expression: '2+2' }, '{"expression":"2+2","result":4}'],
      [3, { expression: '3+3' }, '{"expression":"3+3","result":6}'],
    ];
    expect(await run.result().catch((error: unknown) => error)).toBeInstanceOf(AgentRunError);
    await harness.restartWorker(async () => {
      const trace = await within(harness.agents.handle(run.workflowId).getTrace(), 'getTrace');
      expect(summary(trace.steps)).toEqual(expected);
      const failure = await within(
        harness.agents
          .handle(run.workflowId)
          .result()
          .catch((error: unknown) => error),
        'result',
      );
      expect(summary((failure as AgentRunError).trace?.steps ?? [])).toEqual(expected);
    });
  });

  it('each run hands over only its own steps: the next run does not carry them further', async () => {
    const run = await harness.start([calc('1'), calc('2'), calc('3'), calc('4'), { answer: 'done' }], 'q', {
      history: { maxStepsPerRun: 2 },
    });
    await run.result();
    const archived: number[][] = [];
    for (const runId of (await chainRunIds(harness.client, run.workflowId)).slice(1)) {
      const history = await harness.client.workflow.getHandle(run.workflowId, runId).fetchHistory();
      const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      const input = defaultPayloadConverter.fromPayload<AgentWorkflowInput>(payload ?? {});
      archived.push(input.previousSteps?.steps.map((step) => step.iteration) ?? []);
    }
    expect(archived).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });
});
