import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import type { ReActResult } from '../../src/shared/types';
import { useHarness } from '../support/harness';

const harness = useHarness();
const thought = 'The product needs the calculator, so I call it with both numbers.';

/** Starts the stock workflow as the Temporal UI or another SDK would: no AgentClient, the config as written. */
async function startRaw(config: unknown, turns: Parameters<typeof harness.model.script>[1]) {
  const model = `raw-${randomUUID()}`;
  harness.model.script(model, turns);
  return harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
    taskQueue: harness.agents.taskQueue,
    workflowId: `raw-${randomUUID()}`,
    args: [{ query: 'What is 6*7?', config: { ...(config as object), model } }],
  });
}

describe('a workflow input with the grouped config people write', () => {
  it('is read as the client would send it resolved: limits and an outcome stop apply', async () => {
    const handle = await startRaw({ limits: { maxIterations: 1 }, forceFinalAnswer: false }, [
      { thought, toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] },
    ]);
    expect(((await handle.result()) as ReActResult).terminationReason).toBe('max_iterations');

    const done = await startRaw(
      { stopWhen: [{ type: 'thought_contains', text: 'ANSWER IS 42', outcome: 'success' }] },
      [
        {
          thought: 'I worked it out: THE ANSWER IS 42.',
          toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }],
        },
      ],
    );
    const result = (await done.result()) as ReActResult;
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toContain('ANSWER IS 42');
  });

  it('a run started that way can be continued and forked like any other', async () => {
    const calc = { thought, toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] };
    const handle = await startRaw({ limits: { maxIterations: 1 }, forceFinalAnswer: false }, [calc]);
    expect(((await handle.result()) as ReActResult).terminationReason).toBe('max_iterations');
    const model = `raw-continued-${randomUUID()}`;
    harness.model.script(model, [{ answer: '42' }]);
    const continued = await harness.agents.continue(handle.workflowId, { maxIterations: 3, config: { model } });
    expect((await continued.result()).finalAnswer).toBe('42');
    const forkModel = `raw-forked-${randomUUID()}`;
    harness.model.script(forkModel, [{ answer: '42' }]);
    const forked = await harness.agents.fork(handle.workflowId, {
      fromStep: 1,
      config: { model: forkModel, limits: { maxIterations: 3 } },
    });
    expect((await forked.result()).finalAnswer).toBe('42');
  });

  it("a caller's model-call policy is not the worker's: a config that sets one is refused", async () => {
    const handle = await startRaw({ modelCallPolicy: { timeoutMs: 1, maximumAttempts: 1 } }, [{ answer: 'never' }]);
    const error: unknown = await handle.result().catch((caught: unknown) => caught);
    expect((error as WorkflowFailedError).cause?.message).toBe('Invalid agent config: unknown field: modelCallPolicy');
  });

  it('a bad field fails the run at once, named by its group', async () => {
    const handle = await startRaw({ limits: { maxIterations: 'ten' } }, [{ answer: 'never asked' }]);
    const error: unknown = await handle.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause?.message).toMatch(/^Invalid agent config: limits\.maxIterations: /);
  });
});
