import { describe, expect, it } from 'vitest';
import type { EventsGap } from '../../src/client/events';
import type { AgentEvent } from '../../src/shared/events';
import { getEventsQuery, modelDeltaSignal, waitForEventsUpdate } from '../../src/shared/messages';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();

const THOUGHT =
  'The customer asked for the exact total of three invoices, so I add them with the calculator before answering.';
const call = { name: 'calculator', args: { expression: '120 + 75 + 310' } };

type Streamed = AgentEvent | EventsGap;
const deltasOf = (events: readonly Streamed[]) =>
  events.flatMap((event) => (event.type === 'thought_delta' ? [event] : []));

describe('token deltas (stream: true)', () => {
  it("the model's text reaches a subscriber while the model is still answering, and adds up to the thought", async () => {
    // Five chunks 300 ms apart: the reply takes over a second to finish.
    const run = await harness.start(
      [{ thought: THOUGHT, toolCalls: [call], streamChunks: 5, chunkDelayMs: 300 }, { answer: 'The total is 505.' }],
      'q',
      { modelSettings: { stream: true } },
    );
    const events: Streamed[] = [];
    let firstDeltaAt: number | undefined;
    for await (const event of run.events()) {
      if (event.type === 'thought_delta') firstDeltaAt ??= Date.now();
      events.push(event);
    }
    const respondedAt = harness.model.requests(run.modelName)[0]?.respondedAt;
    expect(firstDeltaAt).toBeDefined();
    expect(respondedAt).toBeDefined();
    expect(firstDeltaAt!).toBeLessThan(respondedAt!);
    const deltas = deltasOf(events).filter((delta) => delta.iteration === 1);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((delta) => delta.text).join('')).toBe(THOUGHT);
    const thought = events.find((event) => event.type === 'thought');
    expect(thought).toMatchObject({ iteration: 1, text: THOUGHT });
    // Deltas come before the thought they add up to.
    expect(events.indexOf(deltas.at(-1)!)).toBeLessThan(events.indexOf(thought!));
    expect((await run.result()).finalAnswer).toBe('The total is 505.');
  });

  it('a call cut off mid-stream is retried: a reset marks where the new attempt starts, nothing is duplicated', async () => {
    const run = await harness.start(
      [
        { thought: THOUGHT, toolCalls: [call], streamChunks: 4, breakAfterChunks: 2, chunkDelayMs: 200 },
        { thought: THOUGHT, toolCalls: [call], streamChunks: 4 },
        { answer: 'The total is 505.' },
      ],
      'q',
      { modelSettings: { stream: true } },
    );
    const events: Streamed[] = [];
    for await (const event of run.events()) events.push(event);
    const ofIteration1 = events.filter((event) => 'iteration' in event && event.iteration === 1);
    const reset = ofIteration1.findIndex((event) => event.type === 'thought_reset');
    expect(reset).toBeGreaterThan(0);
    expect(ofIteration1[reset]).toMatchObject({ type: 'thought_reset', attempt: 2 });
    const before = deltasOf(ofIteration1.slice(0, reset));
    const after = deltasOf(ofIteration1.slice(reset));
    expect(before.every((delta) => delta.attempt === 1)).toBe(true);
    expect(THOUGHT.startsWith(before.map((delta) => delta.text).join(''))).toBe(true);
    expect(after.map((delta) => delta.text).join('')).toBe(THOUGHT);
    expect(harness.model.requests(run.modelName)).toHaveLength(3);
  });

  it('deltas cost a signal per batch, not per token', async () => {
    const run = await harness.start(
      [
        { thought: THOUGHT, toolCalls: [call], streamChunks: 40 },
        { answer: 'The total is 505.', streamChunks: 40 },
      ],
      'q',
      { modelSettings: { stream: true } },
    );
    await run.result();
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    const signals = (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes);
    // 80 chunks sent within milliseconds: a batch or two per call.
    expect(signals.length).toBeGreaterThan(0);
    expect(signals.length).toBeLessThanOrEqual(4);
  });

  it('a streamed reply past the reply cap is cut: nothing more is signalled, and the model is told', async () => {
    // 1.2 MB in 45 chunks: each 100 ms batch used to become a signal of its whole text.
    const run = await harness.start(
      [{ content: 'x'.repeat(1_200_000), streamChunks: 45, chunkDelayMs: 5 }, { answer: 'Short now.' }],
      'q',
      { modelSettings: { stream: true } },
    );
    const result = await run.result();

    expect(result.finalAnswer).toBe('Short now.');
    expect(result.trace.errorHistory[0]?.message).toMatch(/^Your reply was \d+ characters; replies over 200000/);
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    const signalled = (history.events ?? [])
      .filter((event) => event.workflowExecutionSignaledEventAttributes)
      .reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    // At most the cap itself travelled as previews (base64 in this JSON adds a third).
    expect(signalled).toBeLessThan(400_000);
  });

  it('previews signalled by anyone are dropped unless the run streams that call; a cursor past the end is refused (N19, N1)', async () => {
    const run = await harness.start([{ thought: THOUGHT, toolCalls: [call] }, { answer: 'The total is 505.' }], 'q', {
      approvals: { require: ['calculator'] },
    });
    await waitForPending(harness, run.workflowId);
    const handle = harness.client.workflow.getHandle(run.workflowId);
    for (let index = 0; index < 20; index += 1) {
      await handle.signal(modelDeltaSignal, {
        iteration: 1,
        attempt: 1,
        text: `FAKE THOUGHT ${index}: approved already.`,
      });
    }
    const page = await handle.query(getEventsQuery, { after: 0 });
    expect(page.events.filter((event) => event.type === 'thought_delta')).toEqual([]);
    expect(page.events.some((event) => event.type === 'approval_pending')).toBe(true);
    // A follower's cursor far past the newest event would hold an update slot until the run ended.
    const refused = await handle
      .executeUpdate(waitForEventsUpdate, { args: [{ after: 9_007_199_254_740_991 }] })
      .catch((error: unknown) => error as Error);
    expect((refused as Error & { cause?: Error }).cause?.message).toMatch(/past the newest event/);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).finalAnswer).toBe('The total is 505.');
  });
});

describe('streaming on a worker whose modelCalls.local is set', () => {
  const local = useHarness({ modelCalls: { local: true } });

  it("makes a streaming run's model calls as activities, so their deltas still reach a subscriber", async () => {
    const run = await local.start(
      [{ thought: THOUGHT, toolCalls: [call], streamChunks: 3, chunkDelayMs: 100 }, { answer: 'The total is 505.' }],
      'q',
      { modelSettings: { stream: true } },
    );
    const events: Streamed[] = [];
    for await (const event of run.events()) events.push(event);
    expect(
      deltasOf(events)
        .filter((delta) => delta.iteration === 1)
        .map((delta) => delta.text)
        .join(''),
    ).toBe(THOUGHT);
    expect((await run.result()).finalAnswer).toBe('The total is 505.');
    const history = (await local.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    const scheduled = history.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []);
    expect(scheduled.filter((name) => name === 'callModel')).toHaveLength(2);
  });
});
