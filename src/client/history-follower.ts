import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { abortable, sleepUnlessAborted } from './abortable';
import { temporal } from '@temporalio/proto';
import type { AgentEvent } from '../shared/events';
import { publishEventsSignal } from '../shared/messages';
import type { CallModelInput } from '../shared/protocol';
import type { AgentWorkflowInput } from '../shared/types';
import type { EventsGap, EventsOptions } from './follow-options';
import { decodePayload } from './payloads';

/** The activity whose input carries a publishing run's events (`CallModelInput.events`). */
const MODEL_CALL_ACTIVITY = 'callModel';

/**
 * One read by query from `cursor` (events.ts's, passed in so the two modules do not import each other): the events
 * after it with their gaps, the page's head and whether it ended the stream; undefined when aborted.
 */
export type QueryRead = (
  cursor: number,
  closed: boolean,
) => Promise<{ events: Array<AgentEvent | EventsGap>; head: number; ended: boolean } | undefined>;

/*
 * Following a run by reading its history. Temporal Cloud bills each query and each update, not history reads: a
 * follower that asked `getEvents` and long-polled `waitForEvents` for every step added about two actions a step,
 * per follower. A run that a follower signalled once (`publishEvents`) puts its events on each model
 * call's input; the follower long-polls the history (free) and reads them there. It asks the run by query only
 * where history cannot tell: once when it starts (to catch up from its cursor), after a workflow task that
 * scheduled no model call (a wait for a person, streamed text), and when the run closes.
 */

const EventType = temporal.api.enums.v1.EventType;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

const CLOSED = new Set<number>([
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED,
  EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW,
]);

/** Runs this process has asked to publish: followers in one process send the signal (an action) once per run. */
const signalled = new Set<string>();
/** Queries in flight, by run and cursor: followers of one run in one process at the same place share one. */
const reading = new Map<string, ReturnType<QueryRead>>();

function readShared(workflowId: string, cursor: number, closed: boolean, read: QueryRead): ReturnType<QueryRead> {
  const key = `${workflowId}|${cursor}|${closed}`;
  let pending = reading.get(key);
  if (!pending) {
    pending = read(cursor, closed).finally(() => reading.delete(key));
    reading.set(key, pending);
  }
  return pending;
}

/** How long a follower waits for a run that is being started (a subagent its parent's event just named). */
const STARTING_WAIT_MS = 5_000;
const STARTING_POLL_MS = 100;

/**
 * The run's description; a run not found yet is asked again for a moment: a parent's `subagent_started` comes with
 * the command that starts the child, and its follower can read it before the server has the child. Undefined when
 * aborted.
 */
async function describeOnceStarted(client: Client, workflowId: string, signal: AbortSignal | undefined) {
  const handle = client.workflow.getHandle(workflowId);
  for (let waited = 0; ; waited += STARTING_POLL_MS) {
    try {
      return await handle.describe();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError) || waited >= STARTING_WAIT_MS) throw error;
      await sleepUnlessAborted(STARTING_POLL_MS, signal);
      if (signal?.aborted) return undefined;
    }
  }
}

/** What one history read told the follower. */
interface Progress {
  events: AgentEvent[];
  /** A workflow task completed whose commands carried no events: the run may hold events history does not show. */
  unexplained: boolean;
  /** A workflow task of the run completed: the run is under way, and is asked to publish once. */
  started: boolean;
  publishing: boolean;
  closed: boolean;
  /** The run that continues this one, when it continued as new. */
  nextRunId?: string;
}

async function readHistory(client: Client, events: readonly HistoryEvent[], progress: Progress): Promise<void> {
  for (const event of events) {
    const type = event.eventType ?? EventType.EVENT_TYPE_UNSPECIFIED;
    if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED) {
      const payload = event.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
      const input = await decodePayload<AgentWorkflowInput>(client, payload ?? undefined);
      // The events handed over with the run: those its predecessor recorded after its last model call among them.
      progress.events.push(...(input?.carried?.events?.items ?? []));
      if (input?.carried?.events?.publishing) progress.publishing = true;
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      progress.started = true;
      progress.unexplained = true;
    } else if (type === EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED) {
      if (event.workflowExecutionSignaledEventAttributes?.signalName === publishEventsSignal.name)
        progress.publishing = true;
    } else if (
      type === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
      // Only model calls carry events: a tool's arguments or a summary's prompt are not worth decoding.
      event.activityTaskScheduledEventAttributes?.activityType?.name === MODEL_CALL_ACTIVITY
    ) {
      const payload = event.activityTaskScheduledEventAttributes.input?.payloads?.[0];
      const input = await decodePayload<Partial<CallModelInput>>(client, payload ?? undefined);
      if (Array.isArray(input?.events)) {
        progress.events.push(...input.events);
        progress.unexplained = false;
      }
    } else if (CLOSED.has(type)) {
      progress.closed = true;
      const next = event.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId;
      if (next) progress.nextRunId = next;
    }
  }
}

/**
 * Follows a run through its history (see above). Returns undefined when the stream ended or was aborted, or the
 * cursor to go on from by query and update when history cannot be followed (a closed run, a read that handed back no
 * page token).
 */
export async function* followByHistory(
  client: Client,
  workflowId: string,
  options: EventsOptions,
  read: QueryRead,
): AsyncGenerator<AgentEvent | EventsGap, number | undefined, undefined> {
  const { signal } = options;
  let cursor = options.after ?? 0;
  const emit = function* (items: ReadonlyArray<AgentEvent | EventsGap>) {
    for (const item of items) {
      if (item.seq <= cursor) continue;
      if (item.type !== 'gap' && item.seq > cursor + 1)
        yield { type: 'gap', missed: item.seq - cursor - 1, seq: item.seq - 1 } satisfies EventsGap;
      yield item;
      cursor = item.seq;
    }
  };
  /** One query, shared with this process's other followers; false when the stream is over. */
  const query = async function* (closed: boolean) {
    // A read shared with a follower that went away meanwhile comes back empty: this one asks again itself.
    const page =
      (await readShared(workflowId, cursor, closed, read)) ??
      (signal?.aborted ? undefined : await read(cursor, closed));
    if (!page) return false;
    yield* emit(page.events);
    // A closed run that never wrote `terminated` (terminated from outside) has nothing more once it is read.
    return !page.ended && !(closed && cursor >= page.head);
  };

  const described = await describeOnceStarted(client, workflowId, signal);
  if (!described) return undefined;
  // A closed run is read by query once and for all, as before.
  if (described.status.name !== 'RUNNING') return cursor;
  let runId = described.runId;
  // Catch up from a cursor first: earlier runs, or events the log dropped, are the query's to find. From the start,
  // the history read below asks itself where it cannot tell (the run's first tasks, before it publishes).
  if (cursor > 0 && !(yield* query(false))) return undefined;
  for (;;) {
    const progress: Progress = { events: [], unexplained: false, started: false, publishing: false, closed: false };
    let token: Uint8Array | undefined;
    while (!progress.closed) {
      if (signal?.aborted) return undefined;
      const request = () =>
        client.workflowService.getWorkflowExecutionHistory({
          namespace: client.options.namespace,
          execution: { workflowId, runId },
          waitNewEvent: true,
          ...(token ? { nextPageToken: token } : {}),
        });
      let page: temporal.api.workflowservice.v1.GetWorkflowExecutionHistoryResponse;
      try {
        page = await abortable(client, signal, request);
      } catch (error) {
        if (signal?.aborted) return undefined;
        throw error;
      }
      token = page.nextPageToken?.length ? page.nextPageToken : undefined;
      await readHistory(client, page.history?.events ?? [], progress);
      // Events missing between the cursor and what history holds (too many to hand over): the query finds them.
      const fresh = progress.events.filter((event) => event.seq > cursor);
      if (fresh[0] && fresh[0].seq > cursor + 1 && !(yield* query(false))) return undefined;
      yield* emit(progress.events);
      progress.events = [];
      const run = `${workflowId}/${runId}`;
      if (progress.started && !progress.publishing && !progress.closed && !signalled.has(run)) {
        if (signalled.size >= 10_000) signalled.clear();
        signalled.add(run);
        // A run that closed meanwhile takes no signal: its end is read below.
        await client.workflow
          .getHandle(workflowId, runId)
          .signal(publishEventsSignal)
          .catch(() => undefined);
      }
      if (progress.unexplained && !progress.closed) {
        progress.unexplained = false;
        if (!(yield* query(false))) return undefined;
      }
      // A running run's long-poll always hands back a token; without one, reading on would start over.
      if (!token && !progress.closed) return cursor;
    }
    if (progress.nextRunId) {
      runId = progress.nextRunId;
      continue;
    }
    // The run closed: its last events (the answer, `terminated`) came after its last model call.
    while (yield* query(true)) if (signal?.aborted) return undefined;
    return undefined;
  }
}
