import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import { getTraceQuery } from '../shared/messages';
import { decodePayload } from './payloads';
import type { AgentWorkflowInput, ArchivedSteps, ReActStep, ReActTrace } from '../shared/types';

/** An earlier run of a chain, with the steps the next run's start event archived for it (none in older histories). */
interface EarlierRun {
  runId: string;
  archive: ArchivedSteps | undefined;
}

/** The `previousSteps` a run's input carries, decoded with the client's codecs (e.g. encryption) and converter. */
async function archivedSteps(client: Client, payload: Payload | undefined): Promise<ArchivedSteps | undefined> {
  return (await decodePayload<AgentWorkflowInput | undefined>(client, payload))?.previousSteps;
}

/**
 * The runs before `runId` in a continue-as-new chain, oldest first: one history event read per run, whose start
 * event names the run before it and holds that run's archived steps.
 */
async function earlierRuns(
  client: Client,
  workflowId: string,
  runId: string,
  withSteps: boolean,
): Promise<EarlierRun[]> {
  const runs: EarlierRun[] = [];
  let current = runId;
  for (;;) {
    const page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, runId: current },
      maximumPageSize: 1,
    });
    const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
    const previous: string | null | undefined = started?.continuedExecutionRunId;
    if (!previous) break;
    const archive = withSteps ? await archivedSteps(client, started?.input?.payloads?.[0] ?? undefined) : undefined;
    runs.unshift({ runId: previous, archive });
    current = previous;
  }
  return runs;
}

/**
 * The whole trace of a run that continued-as-new: earlier runs' steps are put before the latest run's. They come
 * from the archive in the next run's start event, so a finished chain needs no worker; a run recorded before
 * archives existed (or whose steps did not fit one) is asked with a query, which a worker answers by replaying it.
 */
export async function stitchTrace(
  client: Client,
  workflowId: string,
  trace: ReActTrace,
  runId?: string,
): Promise<ReActTrace> {
  if (trace.run <= 1) return trace;
  const latest = runId ?? (await client.workflow.getHandle(workflowId).describe()).runId;
  const earlier: ReActStep[] = [];
  for (const { runId: id, archive } of await earlierRuns(client, workflowId, latest, true)) {
    earlier.push(...(archive ?? (await client.workflow.getHandle(workflowId, id).query(getTraceQuery))).steps);
  }
  return { ...trace, steps: [...earlier, ...trace.steps] };
}

/** Every run ID of a workflow's continue-as-new chain, oldest first (the latest run last). */
export async function chainRunIds(client: Client, workflowId: string): Promise<string[]> {
  const latest = (await client.workflow.getHandle(workflowId).describe()).runId;
  return [...(await earlierRuns(client, workflowId, latest, false)).map((run) => run.runId), latest];
}

/**
 * Where each run's steps start in the chain's stitched trace, oldest run first (the first is always 0): the counts
 * come from the archives in the runs' start events, or from a query for runs recorded before archives existed.
 */
export async function runStepOffsets(client: Client, workflowId: string, runId: string): Promise<number[]> {
  const offsets = [0];
  for (const { runId: id, archive } of await earlierRuns(client, workflowId, runId, true)) {
    const steps = archive ?? (await client.workflow.getHandle(workflowId, id).query(getTraceQuery));
    offsets.push(offsets[offsets.length - 1]! + steps.steps.length);
  }
  return offsets;
}

/** The input of a chain's first run (query, config, and a fork's seed), read from its start event. */
export async function firstRunInput(client: Client, workflowId: string): Promise<AgentWorkflowInput | undefined> {
  const [first] = await chainRunIds(client, workflowId);
  const page = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId: first },
    maximumPageSize: 1,
  });
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  return decodePayload<AgentWorkflowInput>(client, started?.input?.payloads?.[0] ?? undefined);
}
