import { defaultPayloadConverter, type RawValue, rawValueTypeInfo } from '@temporalio/common';
import { ActivityCancellationType, ActivityFailure, proxyActivities, TimeoutFailure } from '@temporalio/workflow';
import type { ParsedToolCall } from '../../shared/protocol';
import { describeCall, errorObservation, successObservation } from '../../shared/observation';
import type { RemoteToolInput, RemoteToolPlacement, ToolInfo, ToolObservation } from '../../shared/tool-protocol';
import { validateToolArgsLocally } from '../activity-proxies';
import type { RunState } from '../record/run-state';
import { fullTextOver } from './long-observations';
import { errorMessage } from '../../shared/errors';

/*
 * A remote tool: an activity of another worker, in any language, scheduled by type name on its
 * own task queue. The contract such a worker implements is docs/tools-in-other-languages.md.
 */

/**
 * A remote tool's activity as the workflow sees it: one JSON argument, and its result as the other worker encoded it.
 * The workflow reads that result itself: decoded by the SDK, a payload this worker cannot read (another converter's
 * encoding, broken JSON) failed every workflow task of the run, forever, before any workflow code could see it.
 */
type RemoteActivity = (input: RemoteToolInput) => Promise<RawValue>;

/**
 * The arguments checked against the tool's JSON Schema on this worker, in a local activity: arguments it refuses are
 * an observation the model can correct, and the other worker never sees them. Null when they fit.
 */
export async function refusedArguments(state: RunState, call: ParsedToolCall): Promise<ToolObservation | null> {
  const problem = await validateToolArgsLocally({ tool: call.tool, args: call.args });
  return problem === null ? null : errorObservation(call.tool, call.args, problem, 'invalid_arguments');
}

/**
 * Runs the tool's activity on its task queue: never local (it is another worker's) and never ahead of the workflow's
 * admission. A string result is the observation's text as it is; any other JSON value is encoded, as a local tool's
 * output is. Failures (after the tool's retries) are thrown for the caller to turn into an observation.
 */
export async function runRemoteTool(
  state: RunState,
  call: ParsedToolCall,
  tool: ToolInfo,
  remote: RemoteToolPlacement,
  idempotencyKey: string,
): Promise<ToolObservation> {
  const activities = proxyActivities<Record<string, RemoteActivity>>({
    taskQueue: remote.taskQueue,
    startToCloseTimeout: tool.timeout,
    // Non-retryable by Temporal's rules: a queue nobody polls ends the call instead of holding the run.
    scheduleToStartTimeout: remote.scheduleToStartTimeout,
    retry: tool.retry,
    // A tool may have side effects: a stopped run waits until the other worker has finished with the call.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    activityTypeInfo: { [remote.activityType]: { outputType: rawValueTypeInfo } },
  });
  const result = await activities[remote.activityType]!.executeWithOptions(
    { summary: `tool · ${describeCall(call.tool, call.args, 60)}` },
    [{ tool: call.tool, args: call.args ?? {}, callId: call.callId, idempotencyKey }],
  );
  let output: unknown;
  try {
    // The contract is JSON whatever the workflows' own payload converter is: the SDK's default reads exactly that.
    output = defaultPayloadConverter.fromPayload(result.payload);
  } catch (error) {
    const why = errorMessage(error);
    return errorObservation(
      call.tool,
      call.args,
      `the tool's worker answered with a result that could not be read: ${why} (a remote tool returns one JSON value)`,
    );
  }
  const { fullTextOver: over } = fullTextOver(state);
  return successObservation(output, state.config.history.maxObservationTokens, over);
}

/** Whether a remote call failed because no worker picked it up in time: it never started, so it had no effect. */
export function neverPickedUp(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}
