import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness';

const harness = useHarness();

describe('a successful run', () => {
  it('thinks, calls the calculator through the real openai client, and answers', async () => {
    const run = await harness.start(
      [
        {
          thought: 'I need the product of 6 and 7; the calculator evaluates it exactly.',
          toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }],
        },
        { answer: 'The answer is 42.' },
      ],
      'What is 6 times 7?',
    );
    const result = await run.result();

    expect(result.success).toBe(true);
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('The answer is 42.');
    expect(result.workflowId).toBe(run.workflowId);
    const [step, final] = result.trace.steps;
    expect(step?.action).toMatchObject({ type: 'tool_call', tool: 'calculator', args: { expression: '6 * 7' } });
    expect(step?.observationData).toEqual({ expression: '6 * 7', result: 42 });
    expect(step?.isError).toBe(false);
    expect(final?.action).toEqual({ type: 'final_answer', answer: 'The answer is 42.' });
    expect(result.trace.totalIterations).toBe(2);
    expect(result.trace.toolUsage).toEqual({ calculator: 1 });
    expect(result.tokenUsage.totalTokens).toBeGreaterThan(0);
    expect(result.trace.totalTokens).toBe(result.tokenUsage.totalTokens);
    // Each step carries the usage of the model call that produced it; together they make the total.
    expect(final?.tokenUsage.totalTokens).toBeGreaterThan(0);
    expect((step?.tokenUsage.totalTokens ?? 0) + (final?.tokenUsage.totalTokens ?? 0)).toBe(
      result.tokenUsage.totalTokens,
    );

    // The model saw the tool's result as a tool message answering its own call ID.
    const requests = harness.model.requests(run.modelName);
    expect(requests).toHaveLength(2);
    const toolMessage = requests[1]?.messages.find((message) => message.role === 'tool');
    // The server's own ID, as it issued it (issue 44): the run's c1-1 stays the run's.
    expect(toolMessage?.tool_call_id).toBe('call_0_0');
    expect(step?.action).toMatchObject({ callId: 'c1-1', serverCallId: 'call_0_0' });
    expect(String(toolMessage?.content)).toContain('42');
    expect(requests[0]?.authorization).toBe('Bearer test-key');
    expect(requests[0]?.tools?.map((tool) => tool.function.name)).toContain('calculator');
    expect(requests[0]?.tools?.map((tool) => tool.function.name)).toContain('final_answer');
  });

  it('schedules each activity, local or not, with a readable summary for the Temporal UI', async () => {
    const run = await harness.start([
      {
        thought: 'I need the square root of 81, the current rate and a price; the tools give them exactly.',
        toolCalls: [
          { name: 'calculator', args: { expression: 'sqrt(81)' } },
          { name: 'interest_rate', args: { name: 'selic' } },
          { name: 'stock_price', args: { symbol: 'AAPL' } },
        ],
      },
      { answer: '9' },
    ]);
    await run.result();
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    const summary = (event: temporal.api.history.v1.IHistoryEvent): string | undefined => {
      const payload = event.userMetadata?.summary;
      return payload ? defaultPayloadConverter.fromPayload<string>(payload) : undefined;
    };
    const events = history.events ?? [];
    const activities = events.filter((event) => event.activityTaskScheduledEventAttributes).map(summary);
    const localActivities = events
      .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
      .map(summary);
    expect(activities).toEqual(['think · step 1', 'tool · interest_rate({"name":"selic"})', 'think · step 2']);
    // The run's start (config check and catalog lookup) and stock_price (the default timeout, so local by default)
    // run in the workflow's worker as local activities, recorded as markers; interest_rate, whose 2-minute timeout is
    // over the local limit, is a remote activity. The calculator is read-only: it ran ahead inside "think · step 1".
    expect(localActivities).toEqual(['check config, list tools', 'tool · stock_price({"symbol":"AAPL"})']);
  });
});

describe('a worker whose modelCalls.local is set', () => {
  const local = useHarness({ modelCalls: { local: true } });

  it('every model call is a local activity and the run answers the same', async () => {
    const run = await local.start(
      [
        {
          thought: 'The calculator evaluates the product exactly, so I will use it.',
          toolCalls: [{ name: 'calculator', args: { expression: '6 * 7' } }],
        },
        { answer: 'The answer is 42.' },
      ],
      'What is 6 times 7?',
    );
    const result = await run.result();
    expect(result.finalAnswer).toBe('The answer is 42.');
    expect(result.trace.steps[0]?.observationData).toEqual({ expression: '6 * 7', result: 42 });
    const events = (await local.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    // Nothing went through the task queue: no activity was scheduled, and model calls are markers in history: the
    // run's start and two model calls (the read-only calculator ran ahead inside the first).
    expect(events.filter((event) => event.activityTaskScheduledEventAttributes)).toEqual([]);
    expect(
      events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    ).toHaveLength(3);
  });
});
