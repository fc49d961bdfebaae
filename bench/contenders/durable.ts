/**
 * The durable-react-agent contender: P1/P2 loops, P3 history bytes, P4 approval latency, P5 parked runs, P7 event
 * streams and P8 engine actions.
 */
import { temporal } from '@temporalio/proto';
import { chainRunIds } from '../../src/client/run-chain';
import type { ReActResult } from '../../src/shared/types';
import { childMain, now } from '../child';
import { measureLoop, type LoopJob, type LoopResult } from '../measure';
import { BENCH_TASK, benchModel } from '../scenario';
import { measureApprovalLatency, measureParkedRuns, type ApprovalJob, type ApprovalResult } from './durable-approvals';
import { startDurableStack, succeeded, type DurableStack } from './durable-stack';
import { measureEvents, type EventsJob, type EventsResult } from './durable-events';
import { measureActions, type ActionsJob, type ActionsRow } from './durable-actions';
import type { sdkFloorAgent } from './sdk-floor-workflow';

export type DurableJob = (
  | ({ kind: 'loop'; maxCachedWorkflows: number; modelCalls: 'activity' | 'local' } & LoopJob)
  | ({ kind: 'sdk-floor'; maxCachedWorkflows: number; remote?: boolean } & LoopJob)
  | { kind: 'history'; baseURL: string; sizes: number[] }
  | ({ kind: 'approvals' } & ApprovalJob)
  | ({ kind: 'events' } & EventsJob)
  | ({ kind: 'actions' } & ActionsJob)
) & {
  /** NODE_OPTIONS of the worker process (`--worker-node-options`). */
  workerNodeOptions?: string;
};

export interface HistoryRow {
  steps: number;
  runsInChain: number;
  bytes: number;
  bytesPerStep: number;
  largestRunBytes: number;
  seconds: number;
}

/** Starts one agent on `model` and waits for its answer; throws unless it finished the scripted work. */
export async function runDurableAgent(stack: DurableStack, model: string): Promise<ReActResult> {
  const steps = Number(model.split('.')[2]);
  const run = await stack.agents.start(BENCH_TASK, { model, limits: { maxIterations: steps + 1 } });
  return succeeded(stack, run.workflowId);
}

/** The SDK floor's run on `model` (sdk-floor-workflow.ts); throws unless it made every model call of its script. */
async function runFloorAgent(stack: DurableStack, model: string, remote: boolean): Promise<void> {
  const steps = Number(model.split('.')[2]);
  const type = remote ? 'sdkFloorRemoteAgent' : 'sdkFloorAgent';
  const calls = await stack.client.workflow.execute<typeof sdkFloorAgent>(type, {
    taskQueue: stack.taskQueue,
    workflowId: `floor-${model}`,
    args: [model],
  });
  if (calls !== steps + 1) throw new Error(`the SDK floor run on ${model} made ${calls} model calls, not ${steps + 1}`);
}

/** P3: the Temporal history each agent leaves, summed over its continue-as-new chain. */
async function measureHistory(stack: DurableStack, sizes: number[]): Promise<HistoryRow[]> {
  const rows: HistoryRow[] = [];
  for (const steps of sizes) {
    const started = now();
    const run = await stack.agents.start(BENCH_TASK, {
      model: benchModel('noop', steps, 'p3'),
      limits: { maxIterations: steps + 1 },
    });
    await succeeded(stack, run.workflowId);
    const seconds = (now() - started) / 1000;
    let bytes = 0;
    let largest = 0;
    const runIds = await chainRunIds(stack.client, run.workflowId);
    for (const runId of runIds) {
      const history = await stack.client.workflow.getHandle(run.workflowId, runId).fetchHistory();
      const size = temporal.api.history.v1.History.encode(history).finish().byteLength;
      bytes += size;
      largest = Math.max(largest, size);
    }
    rows.push({
      steps,
      runsInChain: runIds.length,
      bytes,
      bytesPerStep: bytes / steps,
      largestRunBytes: largest,
      seconds,
    });
    console.error(`history: ${steps} steps measured`);
  }
  return rows;
}

childMain<DurableJob, LoopResult | HistoryRow[] | ApprovalResult | EventsResult | ActionsRow[]>(async (job) => {
  const maxCachedWorkflows =
    job.kind === 'history' || job.kind === 'events' || job.kind === 'actions' ? 100 : job.maxCachedWorkflows;
  const stack = await startDurableStack({
    baseURL: job.baseURL,
    maxCachedWorkflows,
    workload: job.kind === 'sdk-floor' ? 'sdk-floor' : 'agent',
    ...(job.kind === 'loop' ? { modelCalls: job.modelCalls } : {}),
    ...(job.workerNodeOptions ? { nodeOptions: job.workerNodeOptions } : {}),
  });
  try {
    if (job.kind === 'sdk-floor')
      return await measureLoop(job, (model) => runFloorAgent(stack, model, job.remote === true));
    if (job.kind === 'loop') return await measureLoop(job, async (model) => void (await runDurableAgent(stack, model)));
    if (job.kind === 'history') return await measureHistory(stack, job.sizes);
    if (job.kind === 'events') return await measureEvents(stack, job);
    if (job.kind === 'actions') return await measureActions(stack, job);
    const latency = await measureApprovalLatency(stack, job);
    return { ...latency, ...(await measureParkedRuns(stack, job)) };
  } finally {
    await stack.close();
  }
});
