import { workflowInfo } from '@temporalio/workflow';
import type { ModelReply, ParsedToolCall } from '../../shared/protocol';
import type { RanAhead, RunAheadRequest, ToolInfo, ToolObservation } from '../../shared/tool-protocol';
import { needsConfirmation } from '../people/confirmation';
import type { RunState } from '../record/run-state';
import { fullTextOver } from './long-observations';
import { countDiscardedRunAhead } from '../record/cost-ledger';

/*
 * Read-only tools run ahead (see `readOnly` in defineTool): the model call that names them runs them too, and the
 * workflow takes a result, recorded with the reply, for a call it admits instead of scheduling the tool's activity.
 * Admission stays the workflow's: a result it does not admit is dropped, which only a tool that changes nothing
 * allows. Whether a call ran ahead is read from the recorded reply, so a run replays the way it ran.
 */

/** Handlers' idempotency keys are `<prefix>:<callId>`: the chain's first run ID, which continue-as-new keeps. */
export function keyPrefix(): string {
  return workflowInfo().firstExecutionRunId;
}

/**
 * The tools of a run that may run ahead: read-only and local, and never waiting for a person. None when the config
 * says `runAhead: false`, or when a beforeToolCall hook judges calls first.
 */
export function runAheadTools(state: RunState, tools: readonly ToolInfo[]): string[] {
  if (state.hooks.beforeToolCall || state.terms.runAhead === false) return [];
  // Only tools whose policy is `never` can be known not to wait before their arguments are: the run's config decides.
  return tools
    .filter((tool) => tool.readOnly === true && tool.local === true && tool.confirm === 'never')
    .filter((tool) => !needsConfirmation(tool, undefined, state.config, []))
    .map((tool) => tool.name);
}

/** The run-ahead record as this file writes it: every other file reads it only. */
function writableRunAhead(state: RunState): { tools: readonly string[]; results: Map<string, RanAhead> } {
  return state.runAhead as { tools: readonly string[]; results: Map<string, RanAhead> };
}

/** Offers the run's tools that may run ahead (see {@link runAheadTools}) to its model calls. */
export function offerRunAhead(state: RunState, tools: readonly ToolInfo[]): void {
  writableRunAhead(state).tools = runAheadTools(state, tools);
}

/** What the next model call may run ahead, of the tools it offers; undefined when nothing. */
export function runAheadRequest(state: RunState, offered: readonly string[]): RunAheadRequest | undefined {
  const tools = state.runAhead.tools.filter((name) => offered.includes(name));
  if (tools.length === 0) return undefined;
  return {
    tools,
    iteration: state.counters.iterations,
    maxObservationTokens: state.config.history.maxObservationTokens,
    ...fullTextOver(state),
    maxCalls: state.config.limits.maxToolCallsPerReply,
    keyPrefix: keyPrefix(),
  };
}

/** Keeps the results the reply's calls got ahead, in place of the previous reply's unused ones. */
export function keepRanAhead(state: RunState, reply: ModelReply): void {
  const ran = reply.type === 'tool_calls' ? (reply.ranAhead ?? []) : [];
  // What the previous reply ran ahead and no admitted call took was paid for and thrown away.
  countDiscardedRunAhead(state.cost, state.runAhead.results.size);
  writableRunAhead(state).results = new Map(ran.map((entry) => [entry.callId, entry]));
}

/** The result an admitted call got ahead, when it ran with exactly these arguments; each is used once. */
export function takeRanAhead(state: RunState, call: ParsedToolCall): ToolObservation | undefined {
  const ahead = state.runAhead.results.get(call.callId);
  if (!ahead || ahead.tool !== call.tool || ahead.argsJson !== JSON.stringify(call.args ?? null)) return undefined;
  writableRunAhead(state).results.delete(call.callId);
  return ahead.observation;
}
