import type { Client } from '@temporalio/client';
import { validateAgentConfig } from '../shared/agent-config';
import type { AgentEvent, AgentEventBody } from '../shared/events';
import { argsText, eventText } from '../shared/events';
import type { ResolvedConfig } from '../shared/config';
import { renderScratchpad } from '../shared/protocol/text-format';
import type { AgentStatus, ReActResult, ReActTrace } from '../shared/types';
import { AgentRunError } from './errors';
import { firstRunInput, stitchTrace } from './run-chain';
import { toRunError } from './start-input';

/** A run that completed or failed, as its history records it: its whole trace, and how and when it ended. */
export interface ClosedRun {
  trace: ReActTrace;
  /** True when the run failed with an error (its trace is the one the failure attached). */
  failed: boolean;
  /** When it closed (ISO). */
  closedAt: string;
  /** The chain's query and resolved config, read from its first start event. */
  start(): Promise<{ query: string; config: ResolvedConfig }>;
}

/**
 * Reads a run that completed or failed from its history (its result, or the trace its failure attached), so it needs
 * no worker: a closed run's queries are answered only by a worker replaying it, and `run`'s worker leaves with it.
 * Undefined while the run runs, and for runs closed some other way (terminated, timed out), whose history holds no
 * trace.
 */
export async function readClosedRun(client: Client, workflowId: string): Promise<ClosedRun | undefined> {
  const workflow = client.workflow.getHandle(workflowId);
  const description = await workflow.describe();
  const status = description.status.name;
  if (status !== 'COMPLETED' && status !== 'FAILED') return undefined;
  let trace: ReActTrace;
  let failed = false;
  try {
    trace = ((await workflow.result()) as ReActResult).trace;
  } catch (error) {
    const failure = toRunError(error, workflowId);
    if (!(failure instanceof AgentRunError) || !failure.trace) return undefined;
    trace = failure.trace;
    failed = true;
  }
  return {
    trace: await stitchTrace(client, workflowId, trace, description.runId),
    failed,
    closedAt: (description.closeTime ?? new Date()).toISOString(),
    start: () => chainStart(client, workflowId),
  };
}

/** A chain's query and resolved config, read from its first run's start event (no worker needed). */
export async function chainStart(
  client: Client,
  workflowId: string,
): Promise<{ query: string; config: ResolvedConfig }> {
  const input = await firstRunInput(client, workflowId);
  const config = validateAgentConfig(input?.config ?? {});
  if (!config.ok) throw new Error(`${workflowId} started with a config no run accepts: ${config.message}`);
  return { query: typeof input?.query === 'string' ? input.query : '', config: config.config };
}

/**
 * A closed run's status, as its `getStatus` query answered when it ended: read from its trace, so it needs no worker.
 * The iteration limit is the configured one with the raises its budget requests granted.
 */
export function statusOfClosedRun(trace: ReActTrace, config: Pick<ResolvedConfig, 'limits'>): AgentStatus {
  const raised = (trace.budgetRequests ?? [])
    .filter((request) => request.limit === 'max_iterations' && request.outcome === 'raise')
    .reduce((sum, request) => sum + (request.amount ?? 0), 0);
  return {
    state: 'completed',
    iteration: trace.totalIterations,
    maxIterations: config.limits.maxIterations + raised,
    tokensUsed: trace.totalTokens,
    terminationReason: trace.terminationReason,
    runningTools: [],
  };
}

/**
 * A run's scratchpad from its stitched trace: the whole chain's steps in the run's own tags, rendered as the
 * workflow's `getScratchpad` query renders its own run's steps (the trace's steps are clipped the same way).
 */
export function scratchpadOfTrace(trace: ReActTrace, config: Pick<ResolvedConfig, 'modelSettings'>): string {
  return renderScratchpad(trace.steps, config);
}

/**
 * A closed run's events rebuilt from its trace, for when no worker can answer the `getEvents` query (which a closed
 * run answers by replay): the start, each step's thought, call and observation, the final answer and the end. What
 * only the live stream held (decisions, streamed text, critic verdicts, summaries) is not in it, and its events are
 * numbered in their own order: a cursor from the live stream may not line up, so the end is always kept.
 */
export function eventsOfClosedRun(trace: ReActTrace, query: string, failed: boolean, closedAt: string): AgentEvent[] {
  const bodies: Array<AgentEventBody & { at: string; run: number }> = [];
  const firstAt = trace.steps[0]?.timestamp ?? closedAt;
  if (trace.stepsInEarlierRuns === 0 && trace.run === 1)
    bodies.push({ type: 'run_started', query: eventText(query), at: firstAt, run: 1 });
  // The live stream gives one thought per model reply (parallel calls share it), and none for an answer without one.
  let thoughtOf = -1;
  for (const step of trace.steps) {
    const at = step.timestamp;
    const { run } = trace;
    const { action, iteration } = step;
    if (action.type === 'final_answer') {
      if (step.thought !== '' && step.thought !== action.answer)
        bodies.push({ type: 'thought', iteration, text: eventText(step.thought), at, run });
      bodies.push({
        type: 'final_answer',
        iteration,
        answer: eventText(action.answer),
        forced: step.forced === true,
        at,
        run,
      });
      continue;
    }
    if (iteration !== thoughtOf) bodies.push({ type: 'thought', iteration, text: eventText(step.thought), at, run });
    thoughtOf = iteration;
    const callId = action.type === 'tool_call' ? action.callId : (action.callId ?? `step-${iteration}`);
    const tool = action.type === 'tool_call' ? action.tool : action.type === 'delegate' ? action.agent : 'ask_user';
    const args =
      action.type === 'tool_call'
        ? action.args
        : action.type === 'delegate'
          ? { task: action.task }
          : { question: action.question };
    bodies.push({ type: 'tool_call_requested', iteration, callId, tool, args: argsText(args), at, run });
    if (step.observation !== null)
      bodies.push({
        type: 'tool_finished',
        callId,
        tool,
        isError: step.isError === true,
        observation: eventText(step.observation),
        at,
        run,
      });
  }
  bodies.push({
    type: 'terminated',
    reason: failed ? 'failed' : (trace.terminationReason ?? 'failure'),
    detail: trace.terminationDetail === null ? null : eventText(trace.terminationDetail),
    ...(trace.cost
      ? {
          cost: {
            usd: trace.cost.usd,
            tokens: trace.cost.usage.totalTokens,
            engineActions: trace.cost.engineActionsTotal,
          },
        }
      : {}),
    at: closedAt,
    run: trace.run,
  });
  return bodies.map((body, index) => ({ ...body, seq: index + 1 }));
}
