import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/worker/tools/define-tool';
import { useHarness, waitForPending } from '../support/harness';

// Read-only tools run ahead inside the model call that names them (defineTool's `readOnly`). What a user must be
// able to rely on: a step costs one activity, the tool runs once per call, and the workflow still decides which
// calls happen: a call it refuses or a person must approve never gets a result from running ahead.

/** Calls per idempotency key (one key per call of a run), for each of this file's tools. */
const ran = new Map<string, number>();
const count = (key: string): number => {
  const calls = (ran.get(key) ?? 0) + 1;
  ran.set(key, calls);
  return calls;
};
const schema = z.object({ key: z.string() });

const tools = [
  defineTool({
    name: 'peek',
    description: 'Reads a value.',
    category: 'test',
    schema,
    readOnly: true,
    handler: ({ key }, context) => ({ key, value: key.length, call: count(context.idempotencyKey) }),
  }),
  defineTool({
    name: 'peek_guarded',
    description: 'Reads a value a person must allow first.',
    category: 'test',
    schema,
    readOnly: true,
    confirm: 'always',
    handler: (_args, context) => ({ call: count(context.idempotencyKey) }),
  }),
  defineTool({
    name: 'peek_flaky',
    description: 'Reads a value; the first try of each call fails.',
    category: 'test',
    schema,
    readOnly: true,
    handler: (_args, context) => {
      const calls = count(context.idempotencyKey);
      if (calls === 1) throw new Error('not yet');
      return { call: calls };
    },
  }),
];

const harness = useHarness({ tools });

const thought = 'The value decides the next step, so I read it with the tool first.';
const call = (tool: string, key: string): ScriptedTurn => ({ thought, toolCalls: [{ name: tool, args: { key } }] });

/** The markers (local activities and patches) and activities a run's history records. */
async function historyCounts(workflowId: string): Promise<{ markers: number; activities: string[] }> {
  const history = await harness.client.workflow.getHandle(workflowId).fetchHistory();
  const events = history.events ?? [];
  return {
    markers: events.filter((event) => event.markerRecordedEventAttributes).length,
    activities: events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
  };
}

const callsOf = (prefix: string, ids: string[]): number[] => ids.map((id) => ran.get(`${prefix}:${id}`) ?? 0);

describe('read-only tools run ahead', () => {
  it('a step with a read-only tool records no activity of its own, and the tool runs once per call', async () => {
    const script = (tool: string) => [call(tool, 'a'), call(tool, 'bb'), call(tool, 'ccc'), { answer: 'read all' }];
    const ahead = await harness.start(script('peek'), 'read three values');
    const own = await harness.start(script('stock_price'), 'read three prices');
    const [aheadResult] = await Promise.all([ahead.result(), own.result()]);
    expect(aheadResult.terminationReason).toBe('success');
    expect(aheadResult.trace.steps.slice(0, 3).map((step) => step.observation)).toEqual([
      '{"key":"a","value":1,"call":1}',
      '{"key":"bb","value":2,"call":1}',
      '{"key":"ccc","value":3,"call":1}',
    ]);
    expect(callsOf(ahead.firstRunId, ['c1-1', 'c2-1', 'c3-1'])).toEqual([1, 1, 1]);
    // The same steps with a tool that may have effects: each call is a local activity (a marker) of its own.
    const [aheadHistory, ownHistory] = await Promise.all([
      historyCounts(ahead.workflowId),
      historyCounts(own.workflowId),
    ]);
    expect(aheadHistory.activities).toEqual(['callModel', 'callModel', 'callModel', 'callModel']);
    expect(ownHistory.markers - aheadHistory.markers).toBe(3);
  });

  it('a read-only tool that needs approval does not run before a person approves it', async () => {
    const run = await harness.start([call('peek_guarded', 'x'), { answer: 'done' }], 'read the guarded value');
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    expect(ran.get(`${run.firstRunId}:c1-1`)).toBeUndefined();
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('{"call":1}');
  });

  it('a call the workflow refuses keeps its refusal, though the tool ran ahead', async () => {
    const both: ScriptedTurn = {
      thought,
      toolCalls: [
        { name: 'peek', args: { key: 'one' } },
        { name: 'peek', args: { key: 'two' } },
      ],
    };
    const run = await harness.start([both, { answer: 'one was enough' }], 'read two values', {
      limits: { maxCallsPerTool: { peek: 1 } },
    });
    const result = await run.result();
    const [first, second] = result.trace.steps;
    expect(first?.observation).toBe('{"key":"one","value":3,"call":1}');
    expect(second?.isError).toBe(true);
    expect(second?.observation).toContain('at most 1 times');
  });

  it('a read-only tool that fails ahead runs again as its own activity, and its answer is used', async () => {
    const run = await harness.start([call('peek_flaky', 'k'), { answer: 'read it' }], 'read the flaky value');
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('{"call":2}');
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(ran.get(`${run.firstRunId}:c1-1`)).toBe(2);
  });
});

describe('a worker with runAhead: false', () => {
  const own = useHarness({ tools, runAhead: false });

  it('a read-only tool runs as its own activity', async () => {
    const run = await own.start([call('peek', 'own'), { answer: 'read it' }], 'read one value');
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('{"key":"own","value":3,"call":1}');
    const events = (await own.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    const summaries = events
      .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map(
        (event) =>
          event.userMetadata?.summary && defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary),
      );
    expect(summaries).toEqual(['check config, list tools', 'tool · peek({"key":"own"})']);
  });
});
