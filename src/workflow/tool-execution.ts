import { ActivityFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { ParsedToolCall } from '../shared/protocol';
import { describeCall, errorObservation } from '../shared/observation';
import type { ToolInfo, ToolObservation } from '../shared/tool-protocol';
import { runLocalTool, runTool } from './activity-proxies';
import { keyPrefix, takeRanAhead } from './run-ahead';
import type { RunState } from './run-state';
import { toolSettled, toolStarted } from './run-activity';
import { countActivity, recordToolTime } from './cost-ledger';
import { fullTextOver } from './summaries';

/* Running one admitted tool call as its activity, and the toolRuns slot it holds while it does. */

function failureMessage(error: unknown, tool: ToolInfo): string {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    return `timed out after ${tool.timeout}`;
  }
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Keyed on the chain's first run ID, which continue-as-new keeps: a later run reusing the workflow ID gets new keys,
 * so a de-duplicating API does not drop its effects. Rule set 1 leaves it to the activity's old `workflowId:callId`.
 */
function idempotencyKey(state: RunState, callId: string): { idempotencyKey?: string } {
  return state.rules.chainIdempotencyKeys ? { idempotencyKey: `${keyPrefix()}:${callId}` } : {};
}

/**
 * Runs a tool call as its activity (local when the tool says so), unless the model call ran it ahead; a failure the
 * tool cannot recover from is an observation.
 */
export async function execute(state: RunState, call: ParsedToolCall, tool: ToolInfo): Promise<ToolObservation> {
  state.events.emit({ type: 'tool_started', callId: call.callId, tool: call.tool });
  const ahead = takeRanAhead(state, call);
  if (ahead) {
    recordToolTime(state.cost, call.tool, { ms: 0 }); // it ran inside the model call, whose time it was
    return ahead;
  }
  toolStarted(state.activity, call.tool);
  const local = tool.local === true;
  const startedMs = Date.now();
  let attempts: number | undefined;
  countActivity(state.cost, local);
  try {
    const observation = await (local ? runLocalTool : runTool).executeWithOptions(
      {
        summary: `tool · ${describeCall(call.tool, call.args, 60)}`,
        startToCloseTimeout: tool.timeout,
        retry: tool.retry,
      },
      [
        {
          tool: call.tool,
          args: call.args,
          callId: call.callId,
          maxObservationTokens: state.config.maxObservationTokens,
          ...fullTextOver(state),
          ...idempotencyKey(state, call.callId),
        },
      ],
    );
    attempts = observation.attempts;
    return observation;
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Reached only when the tool's own attempts are used up by timeouts or worker crashes.
    const observation = errorObservation(call.tool, call.args, failureMessage(error, tool), 'tool_error');
    const usedUp = error instanceof ActivityFailure && error.retryState === 'MAXIMUM_ATTEMPTS_REACHED';
    if (usedUp) attempts = tool.retry.maximumAttempts;
    return usedUp ? { ...observation, attempts: tool.retry.maximumAttempts } : observation;
  } finally {
    toolSettled(state.activity, call.tool);
    // Workflow time, so it replays the same: from the task that scheduled the call to the one that got its result.
    recordToolTime(state.cost, call.tool, { ms: Date.now() - startedMs, attempts, local });
  }
}

/** Whether an admitted call reached its tool; a call that did not gives its `toolRuns` slot back. */
export interface RunSlot {
  ran: boolean;
}

/** Runs the tool's activity; a call the worker refuses (unknown tool, arguments the tool refuses) did not run. */
export async function executeInSlot(
  state: RunState,
  call: ParsedToolCall,
  tool: ToolInfo,
  slot: RunSlot,
): Promise<ToolObservation> {
  slot.ran = true; // a call cut short while running still ran: its side effects may have happened
  const observation = await execute(state, call, tool);
  if (observation.errorKind === 'unknown_tool' || observation.errorKind === 'invalid_arguments') slot.ran = false;
  return observation;
}
