import { defaultDataConverter, defaultPayloadConverter } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { NEVER_ANSWERS } from '../../src/replay/recorded-turn';
import { payloadDecoder, readRecording, type HistoryInput } from '../../src/replay/recording';

/*
 * Reading what the committed corpus has no recording of (local model calls, model failures, signals, timeouts, a
 * refused update, a partial chain), from histories built here event by event. replay-recording.test.ts reads the
 * corpus and plays its answers through the current activities.
 */

const decode = payloadDecoder(defaultDataConverter);
/* Synthetic histories: what the corpus has no recording of (local model calls, failures, signals, timeouts). */
const payloads = (...values: unknown[]) => ({
  payloads: values.map((value) => defaultPayloadConverter.toPayload(value)),
});
const event = (type: string, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  eventType: `EVENT_TYPE_${type.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`,
  [`${type[0]!.toLowerCase()}${type.slice(1)}EventAttributes`]: attributes,
  ...extra,
});
const localActivity = (activityType: string, summary: string, outcome: { result: unknown } | { failure: unknown }) =>
  event(
    'MarkerRecorded',
    {
      markerName: 'core_local_activity',
      details: {
        data: payloads({ activity_type: activityType, attempt: 1 }),
        ...('result' in outcome ? { result: payloads(outcome.result) } : {}),
      },
      ...('failure' in outcome ? { failure: outcome.failure } : {}),
    },
    { userMetadata: { summary: defaultPayloadConverter.toPayload(summary) } },
  );
function synthetic(start: Record<string, unknown>, events: Array<Record<string, unknown>>): HistoryInput {
  const all = [
    event('WorkflowExecutionStarted', { workflowType: { name: 'reactAgentWorkflow' }, ...start }),
    ...events,
  ];
  return {
    workflowId: 'synthetic',
    history: temporal.api.history.v1.History.fromObject({
      events: all.map((entry, index) => ({ eventId: index + 1, ...entry })),
    }),
  };
}
const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
const reply = (calls: Array<{ tool: string; args: unknown }>) => ({
  type: 'tool_calls',
  thought: 'some calls',
  usage,
  assistantMessage: {
    role: 'assistant',
    content: 'some calls',
    toolCalls: calls.map((call, index) => ({
      id: `p${index}`,
      name: call.tool,
      argumentsText: JSON.stringify(call.args),
    })),
  },
  calls: calls.map((call, index) => ({
    callId: `p${index}`,
    tool: call.tool,
    argumentsText: JSON.stringify(call.args),
    args: call.args,
  })),
});

describe('reading what the corpus does not show', () => {
  it('local model and tool calls, a decision by signal, and a model failure that ended the run', async () => {
    const failure = {
      message: 'Request refused by http://model/v1 (HTTP 400): bad input',
      applicationFailureInfo: { type: 'ModelBadRequestError', nonRetryable: true },
    };
    const recording = await readRecording(
      [
        synthetic(
          {
            input: payloads({ query: 'q', config: { modelCalls: 'local' } }),
            originalExecutionRunId: 'r1',
            firstExecutionRunId: 'r1',
          },
          [
            localActivity('callModel', 'think · step 1', {
              result: reply([
                { tool: 'calculator', args: { expression: '1+1' } },
                { tool: 'delete_record', args: { id: 'x' } },
                { tool: 'calculator', args: { expression: '2+2' } },
              ]),
            }),
            event('WorkflowExecutionSignaled', {
              signalName: 'decide',
              input: payloads({ decision: 'edit', args: { id: 'y' }, callId: 'c1-2' }),
            }),
            // The calls finished in another order than they were made: each one's summary (with the edit) says which.
            localActivity('runTool', 'tool · delete_record({"id":"y"})', {
              result: { text: 'deleted y', isError: false, truncated: false },
            }),
            localActivity('runTool', 'tool · calculator({"expression":"2+2"})', {
              result: { text: '4', isError: false, truncated: false },
            }),
            localActivity('runTool', 'tool · calculator({"expression":"1+1"})', {
              result: { text: '2', isError: false, truncated: false },
            }),
            localActivity('callModel', 'think · step 2', {
              failure: { message: 'activity failed', activityFailureInfo: {}, cause: failure },
            }),
            event('WorkflowExecutionFailed', {
              failure: {
                ...failure,
                applicationFailureInfo: { ...failure.applicationFailureInfo, details: payloads({ steps: [] }) },
              },
            }),
          ],
        ),
      ],
      decode,
    );
    expect(recording.modelCalls.map((call) => [call.local, call.prompt, call.output?.usage ?? null])).toEqual([
      [true, null, usage],
      [true, null, null],
    ]);
    expect(recording.modelCalls[1]?.failure).toEqual({
      message: failure.message,
      type: 'ModelBadRequestError',
      nonRetryable: true,
    });
    expect(recording.modelCalls[1]?.turn).toEqual({ status: 400, errorMessage: 'bad input' });
    expect(recording.toolCalls.map((call) => [call.callId, call.tool, call.args, call.observation?.text])).toEqual([
      ['c1-2', 'delete_record', { id: 'y' }, 'deleted y'],
      ['c1-3', 'calculator', { expression: '2+2' }, '4'],
      ['c1-1', 'calculator', { expression: '1+1' }, '2'],
    ]);
    expect(recording.decisions.map((decision) => decision.via)).toEqual(['signal']);
    expect(recording.outcome).toEqual({
      status: 'failed',
      message: failure.message,
      type: 'ModelBadRequestError',
      trace: { steps: [] },
    });
  });

  it('timeouts, a refused update, a cancellation, and a chain whose first run and last hand-over are missing', async () => {
    const scheduled = (id: number, name: string, input: unknown) => ({
      ...event('ActivityTaskScheduled', {
        activityType: { name },
        input: payloads(input),
        startToCloseTimeout: { seconds: 30 },
      }),
      eventId: id,
    });
    const timeout = {
      message: 'activity StartToClose timeout',
      timeoutFailureInfo: { timeoutType: 'TIMEOUT_TYPE_START_TO_CLOSE' },
    };
    const fetched = { seq: 1, keep: 0, append: [], length: 3, fetch: true };
    const recording = await readRecording(
      [
        synthetic(
          {
            input: payloads({ query: 'q', carried: { iterations: 4 } }),
            originalExecutionRunId: 'r1',
            firstExecutionRunId: 'r0',
            continuedExecutionRunId: 'r0',
          },
          [
            scheduled(2, 'callModel', { prompt: fetched, label: 'think · step 5', mode: 'native', tools: [] }),
            event('ActivityTaskCompleted', {
              scheduledEventId: 2,
              result: payloads(reply([{ tool: 'explode', args: { reason: 'r' } }])),
            }),
            scheduled(4, 'runTool', { tool: 'explode', args: { reason: 'r' }, callId: 'c5-1' }),
            event('ActivityTaskTimedOut', { scheduledEventId: 4, failure: timeout }),
            event('WorkflowExecutionUpdateAccepted', {
              acceptedRequest: {
                meta: { updateId: 'u1' },
                input: { name: 'decide', args: payloads({ decision: 'edit', callId: 'c5-9', args: {} }) },
              },
            }),
            event('WorkflowExecutionUpdateCompleted', {
              meta: { updateId: 'u1' },
              outcome: { failure: { message: 'no such call' } },
            }),
            scheduled(8, 'summarize', { kind: 'conversation', query: 'q' }),
            event('ActivityTaskTimedOut', { scheduledEventId: 8, failure: timeout }),
            scheduled(10, 'callModel', {
              prompt: { seq: 2, keep: 3, append: [], length: 3 },
              label: 'think · step 6',
              mode: 'native',
              tools: [],
            }),
            event('WorkflowExecutionCancelRequested', {}),
            event('WorkflowExecutionContinuedAsNew', {}),
          ],
        ),
      ],
      decode,
    );
    expect([recording.input.carried?.iterations, recording.outcome, recording.cancelRequested]).toEqual([
      4,
      { status: 'continued' },
      { afterModelCalls: 2 },
    ]);
    expect(recording.toolCalls).toEqual([
      {
        tool: 'explode',
        args: { reason: 'r' },
        callId: 'c5-1',
        local: false,
        observation: null,
        failure: 'timed out after 30s',
      },
    ]);
    expect(recording.decisions[0]?.refused).toBe('no such call');
    const [fetchedCall, summary, unanswered] = recording.modelCalls;
    // A fetched prompt is not in the history, nor is any prompt built on it.
    expect([fetchedCall?.prompt, unanswered?.prompt]).toEqual([null, null]);
    expect([summary?.failure?.type, summary?.turn]).toEqual(['TimeoutFailure', NEVER_ANSWERS]);
    expect([unanswered?.interrupted, unanswered?.turn]).toEqual([true, NEVER_ANSWERS]);
  });
});
