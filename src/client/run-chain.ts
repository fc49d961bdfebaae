import type { Client } from '@temporalio/client';
import { getTraceQuery } from '../shared/messages';
import type { ReActStep, ReActTrace } from '../shared/types';

/** The run IDs before `runId` in a continue-as-new chain, oldest first (one history event read per run). */
async function earlierRunIds(client: Client, workflowId: string, runId: string): Promise<string[]> {
  const ids: string[] = [];
  let current = runId;
  for (;;) {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId: current },
      maximumPageSize: 1,
    });
    const previous: string | null | undefined =
      page.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) break;
    ids.unshift(previous);
    current = previous;
  }
  return ids;
}

/**
 * The whole trace of a run that continued-as-new: each earlier run is asked for its own steps (a query a worker
 * answers by replaying that run), and they are put before the latest run's steps.
 */
export async function stitchTrace(client: Client, workflowId: string, trace: ReActTrace, runId?: string): Promise<ReActTrace> {
  if (trace.run <= 1) return trace;
  const latest = runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  const earlier: ReActStep[] = [];
  for (const id of await earlierRunIds(client, workflowId, latest)) {
    earlier.push(...(await client.workflow.getHandle(workflowId, id).query(getTraceQuery)).steps);
  }
  return { ...trace, steps: [...earlier, ...trace.steps] };
}

/** Every run ID of a workflow's continue-as-new chain, oldest first (the latest run last). */
export async function chainRunIds(client: Client, workflowId: string): Promise<string[]> {
  const latest = (await client.workflow.getHandle(workflowId).describe()).runId;
  return [...(await earlierRunIds(client, workflowId, latest)), latest];
}
