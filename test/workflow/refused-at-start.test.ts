import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../../src/client';
import { ErrorType } from '../../src/shared/errors';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import { AgentStatusKey } from '../../src/shared/search-attributes';
import { useHarness } from '../support/harness';

const harness = useHarness();
const thought = 'The exact product needs the calculator, which a person confirms first.';

async function agentStatus(workflowId: string): Promise<unknown> {
  return (await harness.client.workflow.getHandle(workflowId).describe()).typedSearchAttributes.get(AgentStatusKey);
}

describe('runs refused at their start', () => {
  it('a confirmation setting naming a tool the run does not have is refused, with the close match, and shows as Failed', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }] }],
      'q',
      { approvals: { require: ['calculater'] } },
    );
    const failure = await run.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunError);
    expect((failure as AgentRunError).type).toBe(ErrorType.InvalidConfig);
    expect((failure as AgentRunError).message).toBe(
      'approvals.require names tools this run does not have: calculater (did you mean calculator?)',
    );
    // The misspelt confirmation used to let the real calculator run with no approval.
    expect(harness.model.requests(run.modelName)).toHaveLength(0);
    expect(await agentStatus(run.workflowId)).toBe('Failed');
  });

  it('a run started elsewhere (the Temporal UI) with an invalid config fails at once and shows as Failed, not Running', async () => {
    const workflowId = `ui-${randomUUID()}`;
    const handle = await harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: harness.agents.taskQueue,
      workflowId,
      args: [{ query: 'q', config: { limits: { maxIterations: -1 } } }],
      typedSearchAttributes: [{ key: AgentStatusKey, value: 'Running' }],
    });
    await expect(handle.result()).rejects.toThrow();
    expect(await agentStatus(workflowId)).toBe('Failed');
    // Checked by the worker (the workflow carries no zod), refused in one line; the stock bundle records no stack
    // frames in workflow failures (src/workflows/sandbox-setup.ts: they cost CPU on every promise).
    const { events } = await handle.fetchHistory();
    const failure = events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
    expect(failure?.message).toBe('Invalid agent config: limits.maxIterations: Too small: expected number to be >=1');
    expect(failure?.stackTrace ?? '').not.toMatch(/\bat\b/);
  });
});
