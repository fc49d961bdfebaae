import { DELEGATE_TOOL, type ParsedToolCall } from '../../shared/protocol';
import { argsText, eventText } from '../../shared/events';
import { errorObservation } from '../../shared/observation';
import type { ToolInfo, ToolObservation } from '../../shared/tool-protocol';
import type { ReActStep } from '../../shared/types';
import { type TokenUsage, ZERO_USAGE } from '../../shared/cost';
import { executeInSlot, type RunSlot } from './tool-execution';
import { needsConfirmation } from '../people/confirmation';
import { callHook } from '../hooks';
import { countDecision, countToolCall } from '../record/metrics';
import { delegate } from './subagents';
import { condenseObservation } from './long-observations';
import { awaitDecision } from '../people/human-loop';
import { askShouldStop, nowIso, recordError, recordStep, stopRun, type RunState } from '../record/run-state';
import { enterPhase } from '../record/run-activity';
import { findStall, iterationPrint, stallDetailOf, stallWindow, type WindowCall } from '../limits/stall';
import { matchStopCondition } from '../limits/termination';
import { ownCount, ownEntry } from '../record/tool-counts';
import { addCallSignatures, addToolCall, addToolRun } from '../record/run-counters';

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
    return {
      refusal: errorObservation(call.tool, args, `unknown tool. Available tools: ${available}`, 'unknown_tool'),
    };
  }
  if (call.parseError !== undefined) {
    return { refusal: errorObservation(call.tool, args, call.parseError, 'invalid_arguments') };
  }
  const limit = ownEntry(state.config.limits.maxCallsPerTool, call.tool);
  // The cap counts calls that ran (or hold a slot while they settle), not every call the model made.
  if (limit !== undefined && ownCount(state.counters.toolRuns, call.tool) >= limit) {
    const message = `this run may call ${call.tool} at most ${limit} times; use another tool or give the final answer`;
    return { refusal: errorObservation(call.tool, args, message, 'tool_limit') };
  }
  return { tool };
}

/** What became of one call: its observation, and how a person decided it when it needed confirmation. */
interface CallOutcome {
  observation: ToolObservation & { summarizedFromTokens?: number };
  childWorkflowId?: string;
  decision?: ReActStep['decision'];
  /** The arguments it ran with, when a person edited them. */
  args?: unknown;
}

/** How a call ended, for metrics: it ran and succeeded, it ran and failed, or it never ran. */
function toolOutcome(outcome: CallOutcome): 'ok' | 'error' | 'refused' {
  const { observation } = outcome;
  if (!observation.isError) return 'ok';
  const neverRan =
    observation.errorKind !== 'tool_error' ||
    outcome.decision?.kind === 'reject' ||
    outcome.decision?.kind === 'timeout';
  return neverRan ? 'refused' : 'error';
}

/** Whether the run offers this tool: only such names may become metric labels, the model can invent any other. */
function isKnownTool(state: RunState, name: string, tools: ReadonlyMap<string, ToolInfo>): boolean {
  return tools.has(name) || (name === DELEGATE_TOOL && Object.keys(state.config.subagents).length > 0);
}

/** Admits, confirms (when the policy asks for it) and runs one call. */
async function settle(
  state: RunState,
  call: ParsedToolCall,
  tools: ReadonlyMap<string, ToolInfo>,
): Promise<CallOutcome> {
  // Admission reads the counts before this call; toolUsage counts every call, refused ones included.
  const admission =
    call.tool === DELEGATE_TOOL && Object.keys(state.config.subagents).length > 0
      ? 'delegate'
      : admit(state, call, tools);
  addToolCall(state.counters, call.tool);
  if (admission === 'delegate') {
    const delegation = await delegate(state, call);
    if (delegation.childWorkflowId !== undefined) addToolRun(state.counters, call.tool, 1);
    return delegation;
  }
  if ('refusal' in admission) return { observation: admission.refusal };
  // Reserved before the first await, so the other calls of the same reply are admitted against it.
  const slot: RunSlot = { ran: false };
  addToolRun(state.counters, call.tool, 1);
  try {
    return await settleAdmitted(state, call, admission.tool, slot);
  } finally {
    if (!slot.ran) addToolRun(state.counters, call.tool, -1);
  }
}

async function settleAdmitted(
  state: RunState,
  call: ParsedToolCall,
  tool: ToolInfo,
  slot: RunSlot,
): Promise<CallOutcome> {
  const beforeToolCall = state.hooks.beforeToolCall;
  if (beforeToolCall) {
    const answer = callHook('beforeToolCall', () =>
      beforeToolCall({ tool: call.tool, args: call.args, callId: call.callId }),
    );
    const verdict = answer instanceof Promise ? await answer : answer;
    if (!verdict.allow)
      return {
        observation: errorObservation(
          call.tool,
          call.args,
          `refused before running: ${verdict.message}`,
          'invalid_arguments',
        ),
      };
  }
  if (!needsConfirmation(tool, call.args, state.config, state.approvals.alwaysApproved)) {
    return { observation: await condenseObservation(state, call, await executeInSlot(state, call, tool, slot)) };
  }
  // Each call runs as soon as its own decision arrives: one slow reviewer does not hold up the other calls.
  const resolution = await awaitDecision(state, call.callId, tool, call.args);
  if (resolution.outcome === 'observe') {
    return {
      observation: { text: resolution.text, isError: resolution.isError, truncated: resolution.truncated === true },
      decision: resolution.decision,
    };
  }
  const ran = { ...call, args: resolution.args };
  const observation = await condenseObservation(state, ran, await executeInSlot(state, ran, tool, slot));
  return {
    observation,
    decision: resolution.decision,
    ...(resolution.decision.kind === 'edit' ? { args: resolution.args } : {}),
  };
}

/** A step's thought and how much of it is reasoning given apart: a model reply carries both. */
export type StepThought = Pick<ReActStep, 'thought' | 'reasoningChars'>;

function toStep(
  state: RunState,
  { thought, reasoningChars }: StepThought,
  call: ParsedToolCall,
  outcome: CallOutcome,
  usage: TokenUsage,
): ReActStep {
  const { observation } = outcome;
  const args = 'args' in outcome ? outcome.args : (call.args ?? call.argumentsText);
  const delegated = outcome.childWorkflowId !== undefined ? (args as { agent: string; task: string }) : null;
  const serverCallId = call.serverCallId !== undefined ? { serverCallId: call.serverCallId } : {};
  return {
    iteration: state.counters.iterations,
    thought,
    ...(reasoningChars ? { reasoningChars } : {}),
    action: delegated
      ? { type: 'delegate', agent: delegated.agent, task: delegated.task, callId: call.callId, ...serverCallId }
      : { type: 'tool_call', tool: call.tool, args, callId: call.callId, ...serverCallId },
    ...(outcome.childWorkflowId ? { childWorkflowId: outcome.childWorkflowId } : {}),
    ...(outcome.decision ? { decision: outcome.decision } : {}),
    observation: observation.text,
    isError: observation.isError,
    ...(observation.data !== undefined ? { observationData: observation.data } : {}),
    ...(observation.truncated ? { truncated: true } : {}),
    ...(observation.effect !== undefined ? { effect: observation.effect } : {}),
    ...(observation.summarizedFromTokens !== undefined
      ? { summarizedFromTokens: observation.summarizedFromTokens }
      : {}),
    timestamp: nowIso(),
    tokenUsage: usage,
  };
}

/**
 * Errors of the run (not a person's rejection) go to the error history, with the tool and its attempts; so does the
 * failure of an attempt a retry recovered from, though the model saw only the result.
 */
function recordCallErrors(state: RunState, call: ParsedToolCall, observation: ToolObservation): void {
  const { attempts } = observation;
  const retries = attempts !== undefined ? { retries: attempts - 1 } : {};
  if (observation.errorKind) {
    const tried = attempts !== undefined ? { ...retries, recovered: false } : {};
    recordError(state, observation.errorKind, observation.text, { tool: call.tool, ...tried });
  } else if (observation.recoveredFrom !== undefined) {
    const failed = errorObservation(call.tool, call.args, observation.recoveredFrom);
    recordError(state, 'tool_error', failed.text, { tool: call.tool, ...retries, recovered: true });
  }
}

/**
 * Runs the tool calls of one reply concurrently and records one step per call, in the model's order. Then checks
 * the custom stop conditions and stall detection.
 */
export async function actOnToolCalls(
  state: RunState,
  thought: StepThought,
  calls: readonly ParsedToolCall[],
  tools: ReadonlyMap<string, ToolInfo>,
  usage: TokenUsage,
): Promise<void> {
  enterPhase(state.activity, 'acting');
  state.events.emit({ type: 'thought', iteration: state.counters.iterations, text: eventText(thought.thought) });
  for (const call of calls) {
    const { callId, tool } = call;
    state.events.emit({
      type: 'tool_call_requested',
      iteration: state.counters.iterations,
      callId,
      tool,
      args: argsText(call.args ?? call.argumentsText),
    });
  }
  const settled = await Promise.allSettled(
    calls.map(async (call) => {
      const outcome = await settle(state, call, tools);
      // As each call finishes, not when the slowest of the reply does.
      const { text, isError } = outcome.observation;
      state.events.emit({
        type: 'tool_finished',
        callId: call.callId,
        tool: call.tool,
        isError,
        observation: eventText(text),
      });
      return outcome;
    }),
  );
  let interruption: Error | undefined;
  const windowCalls: WindowCall[] = [];
  // An asynchronous shouldStop's verdicts, applied once the reply's steps are recorded; a synchronous one's at once.
  const asked: Array<void | Promise<void>> = [];
  calls.forEach((call, index) => {
    const result = settled[index] as PromiseSettledResult<CallOutcome>;
    if (result.status === 'rejected') interruption ??= result.reason as Error;
    // A call cut short by the time budget or a cancellation stays in the trace, marked as interrupted.
    const outcome: CallOutcome =
      result.status === 'fulfilled'
        ? result.value
        : {
            observation: errorObservation(
              call.tool,
              call.args,
              'interrupted: the run stopped before the tool finished',
            ),
          };
    const step = toStep(state, thought, call, outcome, index === 0 ? usage : ZERO_USAGE);
    recordStep(state, step);
    asked.push(askShouldStop(state, step));
    recordCallErrors(state, call, outcome.observation);
    countToolCall(isKnownTool(state, call.tool, tools) ? call.tool : undefined, toolOutcome(outcome));
    if (outcome.decision) countDecision(outcome.decision.kind);
    const args = step.action.type === 'tool_call' ? step.action.args : null;
    windowCalls.push({ tool: call.tool, args });
    const custom = matchStopCondition(step, state.config.stopWhen);
    if (custom) stopRun(state, 'custom', custom);
  });
  if (interruption !== undefined) throw interruption;
  for (const verdict of asked) if (verdict) await verdict;
  detectStallOrCycle(state, windowCalls);
}

/**
 * Stall detection by iteration, each identified by the set of its calls (identical parallel calls of one reply are no
 * stall): a stall is a reply that repeats the last ones, exactly or nearly (a paraphrased query), or a short cycle of
 * replies (A, B, A, B), which would otherwise run to `max_iterations`.
 */
function detectStallOrCycle(state: RunState, calls: readonly WindowCall[]): void {
  if (calls.length === 0) return;
  const threshold = state.config.limits.stallThreshold;
  addCallSignatures(state.counters, [iterationPrint(calls)], stallWindow(threshold));
  const stall = findStall(state.counters.callSignatures, threshold);
  if (stall) stopRun(state, 'stalled', stallDetailOf(stall));
}
