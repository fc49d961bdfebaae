import { ActivityFailure, isCancellation, TimeoutFailure } from '@temporalio/workflow';
import type { ParsedToolCall } from '../shared/model-protocol';
import { describeCall, errorObservation } from '../shared/observation';
import type { ToolInfo, ToolObservation } from '../shared/tool-protocol';
import type { ReActStep, TokenUsage } from '../shared/types';
import { ZERO_USAGE } from '../shared/types';
import { runTool } from './activity-proxies';
import { nowIso, recordError, stopRun, type RunState } from './run-state';
import { callSignature, trailingRepeats } from './stall';
import { matchStopCondition } from './termination';

/**
 * Decides in the workflow, before any activity, whether a call may run: unknown tools, unparseable arguments and
 * calls over the per-tool cap are refused with an observation the model can act on.
 */
function admit(
  state: RunState,
  call: ParsedToolCall,
  tools: ReadonlyMap<string, ToolInfo>,
): { tool: ToolInfo } | { refusal: ToolObservation } {
  const args = call.args ?? call.argumentsText;
  const tool = tools.get(call.tool);
  if (!tool) {
    const available = [...tools.keys()].join(', ') || 'none';
    return { refusal: errorObservation(call.tool, args, `unknown tool. Available tools: ${available}`, 'unknown_tool') };
  }
  if (call.parseError !== undefined) {
    return { refusal: errorObservation(call.tool, args, call.parseError, 'invalid_arguments') };
  }
  const limit = state.config.maxCallsPerTool[call.tool];
  if (limit !== undefined && (state.toolUsage[call.tool] ?? 0) >= limit) {
    const message = `this run may call ${call.tool} at most ${limit} times; use another tool or give the final answer`;
    return { refusal: errorObservation(call.tool, args, message, 'tool_limit') };
  }
  return { tool };
}

function failureMessage(error: unknown, tool: ToolInfo): string {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    return `timed out after ${tool.timeout}`;
  }
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}

async function execute(state: RunState, call: ParsedToolCall, tool: ToolInfo): Promise<ToolObservation> {
  state.runningTools.push(call.tool);
  try {
    return await runTool.executeWithOptions(
      {
        summary: `tool · ${describeCall(call.tool, call.args, 60)}`,
        startToCloseTimeout: tool.timeout,
        retry: tool.retry,
      },
      [{ tool: call.tool, args: call.args, callId: call.callId, maxObservationTokens: state.config.maxObservationTokens }],
    );
  } catch (error) {
    if (isCancellation(error)) throw error;
    // Reached only when the tool's own attempts are used up by timeouts or worker crashes.
    return errorObservation(call.tool, call.args, failureMessage(error, tool), 'tool_error');
  } finally {
    state.runningTools.splice(state.runningTools.indexOf(call.tool), 1);
  }
}

function toStep(state: RunState, thought: string, call: ParsedToolCall, observation: ToolObservation, usage: TokenUsage): ReActStep {
  return {
    iteration: state.iterations,
    thought,
    action: { type: 'tool_call', tool: call.tool, args: call.args ?? call.argumentsText, callId: call.callId },
    observation: observation.text,
    isError: observation.isError,
    ...(observation.data !== undefined ? { observationData: observation.data } : {}),
    ...(observation.truncated ? { truncated: true } : {}),
    timestamp: nowIso(),
    tokenUsage: usage,
  };
}

/**
 * Runs the tool calls of one reply concurrently and records one step per call, in the model's order. Then checks
 * the custom stop conditions and stall detection.
 */
export async function actOnToolCalls(
  state: RunState,
  thought: string,
  calls: readonly ParsedToolCall[],
  tools: ReadonlyMap<string, ToolInfo>,
  usage: TokenUsage,
): Promise<void> {
  state.phase = 'acting';
  const pending = calls.map(async (call) => {
    const admission = admit(state, call, tools);
    state.toolUsage[call.tool] = (state.toolUsage[call.tool] ?? 0) + 1;
    return 'refusal' in admission ? admission.refusal : execute(state, call, admission.tool);
  });
  const settled = await Promise.allSettled(pending);
  let interruption: Error | undefined;
  calls.forEach((call, index) => {
    const outcome = settled[index] as PromiseSettledResult<ToolObservation>;
    if (outcome.status === 'rejected') interruption ??= outcome.reason as Error;
    // A call cut short by the time budget or a cancellation stays in the trace, marked as interrupted.
    const observation =
      outcome.status === 'fulfilled'
        ? outcome.value
        : errorObservation(call.tool, call.args, 'interrupted: the run stopped before the tool finished');
    const step = toStep(state, thought, call, observation, index === 0 ? usage : ZERO_USAGE);
    state.steps.push(step);
    if (observation.isError) recordError(state, observation.errorKind ?? 'tool_error', observation.text);
    state.callSignatures.push(callSignature(call.tool, step.action.type === 'tool_call' ? step.action.args : null));
    // Stall detection only looks at the latest run of identical calls: keep the state bounded.
    state.callSignatures.splice(0, state.callSignatures.length - state.config.stallThreshold);
    const custom = matchStopCondition(step, state.config.stopWhen);
    if (custom) stopRun(state, 'custom', custom);
  });
  if (interruption !== undefined) throw interruption;
  const repeats = trailingRepeats(state.callSignatures);
  const last = calls[calls.length - 1];
  if (last && repeats >= state.config.stallThreshold) {
    stopRun(state, 'stalled', `${last.tool} was called ${repeats} times in a row with the same arguments`);
  }
}
