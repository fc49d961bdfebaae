import { Connection, QueryNotRegisteredError, type WorkflowHandle } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { abortable } from './abortable';
import type { QueryDefinition } from '@temporalio/common';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { DurableAgentError } from '../shared/errors';
import { causeMessages } from './errors';

/** How long a query (or a message) waits for a just-started run to register its handlers. */
export const READY_WITHIN_MS = 10_000;

/**
 * How long a query waits for a worker's answer. Without a bound a query no worker takes (the run's worker is gone:
 * `run` exited, a deploy) hangs for the server's own timeout, some 35 s, and then fails with a bare "Failed to query
 * Workflow".
 */
export const QUERY_ANSWER_WITHIN_MS = 10_000;

/**
 * The server's words for a query no worker took: none polls the task queue now, or none answered in time. A deadline
 * that passes while the call is still being retried by the SDK surfaces as CANCELLED (a caller's own abort is told
 * apart by its signal before this is asked).
 */
const NO_WORKER = /no poller seen|DEADLINE_EXCEEDED|UNAVAILABLE|deadline exceeded|\bCANCELLED\b/i;

/** Options of {@link queryRun}. */
export interface QueryRunOptions {
  /** Abandons the query (and its retries): it then rejects with the SDK's cancellation error. */
  signal?: AbortSignal | undefined;
  /** How long to wait for a worker's answer (default {@link QUERY_ANSWER_WITHIN_MS}). */
  answerWithinMs?: number | undefined;
}

/**
 * A query no worker answered: the message says why in one line (no worker polls the run's task queue, or none answered
 * in time) and whether the run is running or closed.
 */
export class QueryUnansweredError extends DurableAgentError {
  override readonly name = 'QueryUnansweredError';
  constructor(
    message: string,
    readonly workflowId: string,
    /** The run's status when the query failed (RUNNING, COMPLETED, ...). */
    readonly status: string,
    readonly taskQueue: string,
  ) {
    super(message);
  }
}

/** The deadline an enclosing `withDeadline` already set, so a caller's shorter bound is kept. */
function outerDeadline(handle: WorkflowHandle): number | undefined {
  const { connection } = handle.client;
  if (!(connection instanceof Connection)) return undefined;
  const deadline = connection.callContextStorage.getStore()?.deadline;
  return deadline === undefined ? undefined : new Date(deadline).getTime();
}

/** One query attempt, bounded in time and under the caller's signal. */
function askOnce<Result, Args extends unknown[]>(
  handle: WorkflowHandle,
  query: QueryDefinition<Result, Args>,
  options: QueryRunOptions,
  args: Args,
): Promise<Result> {
  const { connection } = handle.client;
  const own = Date.now() + (options.answerWithinMs ?? QUERY_ANSWER_WITHIN_MS);
  const deadline = Math.min(own, outerDeadline(handle) ?? own);
  const ask = () => connection.withDeadline(deadline, () => handle.query(query, ...args));
  return abortable(connection, options.signal, ask);
}

/** Turns a query's "no worker" failure into a one-line {@link QueryUnansweredError}; other errors pass unchanged. */
async function explainUnanswered(handle: WorkflowHandle, queryName: string, error: unknown, withinMs: number) {
  const text = causeMessages(error);
  if (!NO_WORKER.test(text)) return error;
  const description = await handle.describe().catch(() => undefined);
  if (!description) return error;
  const status = description.status.name;
  const queue = description.taskQueue;
  const why = /no poller seen/.test(text)
    ? `no worker polls task queue "${queue}"`
    : `no worker answered within ${Math.round(withinMs / 1000)} s (does a worker poll task queue "${queue}"?)`;
  const state =
    status === 'RUNNING'
      ? `the run is running: start a worker on that task queue (TEMPORAL_TASK_QUEUE=${queue} npx durable-react-agent worker)`
      : `the run is closed (${status}): a worker on that task queue answers by replaying it`;
  return new QueryUnansweredError(
    `The ${queryName} query of ${handle.workflowId} got no answer: ${why}; ${state}`,
    handle.workflowId,
    status,
    queue,
  );
}

/**
 * Whether the run cannot answer queries yet: its handlers are not registered, or (the run just started, or a
 * conversation just handed over to it) its first workflow task is not even scheduled, which the server refuses with
 * FAILED_PRECONDITION.
 */
function notReadyYet(error: unknown): boolean {
  // The SDK also reports a handler's own refusal (a bad argument) as QueryNotRegisteredError: only its words tell.
  if (error instanceof QueryNotRegisteredError) return /did not register a handler/.test(error.message);
  return /Workflow task is not scheduled yet/.test(causeMessages(error));
}

/**
 * Whether a query failed for a moment a running run outlives: no worker answered (or none polls), or the run is not
 * ready for queries yet (it just started, or a conversation just handed over to it, on a busy worker). A follower
 * asks again later while the run runs.
 */
export function answersLater(error: unknown): boolean {
  return error instanceof QueryUnansweredError || NO_WORKER.test(causeMessages(error)) || notReadyYet(error);
}

/**
 * Queries an agent run. A run registers its query handlers once its start is checked (a local activity that
 * validates the config and lists the tools), so a query in the first moments after the start finds none, and
 * Temporal does not hold queries for handlers to come the way it holds signals and updates. Such a query (or one
 * that finds the run's first workflow task not yet scheduled) is tried again while the run is running, for up to
 * 10 s; a closed run that never registered them (refused at its start) fails at once. A query no worker answers within {@link QUERY_ANSWER_WITHIN_MS} (10 s) fails with a
 * {@link QueryUnansweredError}.
 */
export function queryRun<Result, Args extends unknown[]>(
  handle: WorkflowHandle,
  query: QueryDefinition<Result, Args>,
  ...args: Args
): Promise<Result> {
  return queryRunWith(handle, {}, query, ...args);
}

/** {@link queryRun} with a signal that abandons it and its own bound on the wait for an answer. */
export async function queryRunWith<Result, Args extends unknown[]>(
  handle: WorkflowHandle,
  options: QueryRunOptions,
  query: QueryDefinition<Result, Args>,
  ...args: Args
): Promise<Result> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (let waitMs = 20; ; waitMs = Math.min(waitMs * 2, 500)) {
    try {
      return await askOnce(handle, query, options, args);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (!notReadyYet(error) || Date.now() > deadline) {
        throw await explainUnanswered(handle, query.name, error, options.answerWithinMs ?? QUERY_ANSWER_WITHIN_MS);
      }
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}

const PendingTask = temporal.api.enums.v1.PendingWorkflowTaskState;

/** How long a run's workflow task may wait, not taken by any worker, before `result()` says so. */
export const NO_WORKER_WARNING_MS = 10_000;

/**
 * Warns once, as a process warning (code `DURABLE_AGENT_NO_WORKER`), while the run waits for a worker that does not
 * come: its workflow task was scheduled {@link NO_WORKER_WARNING_MS} ago and none has taken it. A forgotten worker is
 * a newcomer's likeliest first mistake, and a `result()` that only waits says nothing of it. Returns the stop.
 */
export function warnWhileNoWorker(handle: WorkflowHandle): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const later = () => {
    timer = setTimeout(() => void check(), NO_WORKER_WARNING_MS);
    timer.unref();
  };
  const check = async () => {
    const description = await handle.describe().catch(() => undefined);
    if (stopped || description?.status.name !== 'RUNNING') return;
    const task = description.raw.pendingWorkflowTask;
    const scheduledMs =
      task?.state === PendingTask.PENDING_WORKFLOW_TASK_STATE_SCHEDULED
        ? optionalTsToMs(task.scheduledTime)
        : undefined;
    const waitedMs = scheduledMs === undefined ? 0 : Date.now() - scheduledMs;
    if (waitedMs < NO_WORKER_WARNING_MS) return later();
    process.emitWarning(
      `run ${handle.workflowId} has waited ${Math.round(waitedMs / 1000)} s for a worker: none has taken its task ` +
        `on task queue "${description.taskQueue}". Start a worker on that queue (the README's worker.ts, or ` +
        '`npx durable-react-agent worker`); the run goes on when one does.',
      { code: 'DURABLE_AGENT_NO_WORKER' },
    );
  };
  later();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
