import { describe, expect, it } from 'vitest';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { useHarness, type Harness } from '../support/harness';

// One worker keeps the prompts it sent; the other keeps none, so each call after a run's first asks the workflow.
const cached = useHarness();
const uncached = useHarness({ promptCacheChars: 0 });

const STEPS = 12;
/** Each step's result is distinct (n * 1000 + 7), so a prompt missing or repeating a step shows. */
const responder: ScriptedResponder = (_request, index) =>
  index < STEPS
    ? {
        thought: `Step ${index + 1}: I compute the next value.`,
        toolCalls: [{ name: 'calculator', args: { expression: `${index + 1} * 1000 + 7` } }],
      }
    : { answer: 'All values computed.' };

/** Bytes of each `callModel` input the run's history records, in order. */
async function recordedModelInputs(harness: Omit<Harness, 'close'>, workflowId: string): Promise<number[]> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'callModel') return [];
    return [(scheduled.input?.payloads ?? []).reduce((sum, payload) => sum + (payload.data?.length ?? 0), 0)];
  });
}

/** Every prompt is the one before plus the step the model took and that step's observation. */
function expectEachPromptExtendsTheLast(requests: RecordedRequest[]): void {
  expect(requests).toHaveLength(STEPS + 1);
  for (let i = 1; i < requests.length; i += 1) {
    const before = requests[i - 1]?.messages ?? [];
    const messages = requests[i]?.messages ?? [];
    expect(messages.slice(0, before.length)).toEqual(before);
    expect(messages.slice(before.length).map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(messages.at(-1)?.content).toContain(String(i * 1000 + 7));
  }
}

async function runSteps(harness: Omit<Harness, 'close'>): Promise<{ requests: RecordedRequest[]; inputs: number[] }> {
  const run = await harness.start(responder, 'compute twelve values', { limits: { maxIterations: STEPS + 1 } });
  const result = await run.result();
  expect(result.terminationReason).toBe('success');
  return {
    requests: harness.model.requests(run.modelName),
    inputs: await recordedModelInputs(harness, run.workflowId),
  };
}

describe('prompts travel as deltas', () => {
  it('the model sees every step, while each recorded model call holds only what changed', async () => {
    const { requests, inputs } = await runSteps(cached);
    expectEachPromptExtendsTheLast(requests);
    // The first call carries the whole prompt; later ones one step each, so they do not grow with the run.
    expect(inputs).toHaveLength(STEPS + 1);
    const later = inputs.slice(1);
    expect(Math.max(...later)).toBeLessThan((inputs[0] ?? 0) * 1.2);
    expect(Math.max(...later)).toBeLessThanOrEqual(Math.min(...later) * 1.2);
  });

  it('a worker without the previous prompt gets it from the workflow and sends the same requests', async () => {
    const { requests: fromCache } = await runSteps(cached);
    const { requests: fromQueries } = await runSteps(uncached);
    expectEachPromptExtendsTheLast(fromQueries);
    const shape = (requests: RecordedRequest[]) => requests.map((request) => request.messages);
    expect(shape(fromQueries)).toEqual(shape(fromCache));
  });
});
