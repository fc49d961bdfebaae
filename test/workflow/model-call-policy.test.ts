import { describe, expect, it } from 'vitest';
import type { Client } from '@temporalio/client';
import { AgentRunError } from '../../src';
import { useHarness } from '../support/harness';

const thought = 'The sum needs the calculator, so I call it with both numbers.';

/** The activities a run scheduled (a local activity is a marker in its history instead). */
async function recorded(client: Client, workflowId: string) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.flatMap((event) =>
    event.activityTaskScheduledEventAttributes?.activityType?.name
      ? [event.activityTaskScheduledEventAttributes.activityType.name]
      : [],
  );
  return { scheduled };
}

describe('the plugin sets how model calls are made: timeout and retries', () => {
  const harness = useHarness({
    modelTimeoutMs: 60_000,
    modelCalls: { timeout: '2s', maximumAttempts: 2, initialInterval: '100ms' },
  });

  it("a hung endpoint fails the run after the worker's two 2 s attempts, not the stock six of 90 s", async () => {
    const started = Date.now();
    const hung = { answer: 'never sent', delayMs: 30_000 };
    const run = await harness.start([hung, hung, hung]);
    const error = await run.result().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AgentRunError);
    expect((error as AgentRunError).message).toMatch(/timed out|timeout/i);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(harness.model.requests(run.modelName)).toHaveLength(2);
    const { scheduled } = await recorded(harness.client, run.workflowId);
    expect(scheduled.filter((name) => name === 'callModel')).toHaveLength(1);
  });
});

describe('modelCalls.local: the thinking calls run as local activities', () => {
  const harness = useHarness({ modelCalls: { local: true } });

  it('a run makes no callModel activity; a streaming run still does', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'calculator', args: { expression: '2+3' } }] },
      { answer: '5' },
    ]);
    expect((await run.result()).finalAnswer).toBe('5');
    expect((await recorded(harness.client, run.workflowId)).scheduled).not.toContain('callModel');

    const streamed = await harness.start([{ answer: 'streamed' }], 'say it', { modelSettings: { stream: true } });
    expect((await streamed.result()).finalAnswer).toBe('streamed');
    expect((await recorded(harness.client, streamed.workflowId)).scheduled).toContain('callModel');
  });
});
