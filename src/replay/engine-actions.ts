import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { chainRunIds } from '../client/run-chain';
import {
  addEngineActions,
  DEFAULT_TASK_TIMEOUT_MS,
  noEngineActions,
  TASK_HEARTBEAT_SHARE,
  type EngineActions,
} from '../shared/cost';

/*
 * Billable engine actions, counted from a run's history the way Temporal Cloud bills them
 * (docs.temporal.io/cloud/actions). Only what a history records is counted: queries, updates a validator rejected,
 * activity heartbeats and visibility reads leave no event, so a run's real bill is this count plus those.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const EventType = temporal.api.enums.v1.EventType;

/** Names of the markers local activities record: the TypeScript, .NET, Python and Rust SDKs' (core), Go's and Java's. */
const LOCAL_ACTIVITY_MARKERS = new Set(['core_local_activity', 'LocalActivity']);
/** The search attribute `patched()` upserts; Temporal Cloud does not bill an upsert that sets only it. */
const CHANGE_VERSION = 'TemporalChangeVersion';

/**
 * An event's type as the enum's number. A history fetched from the server has numbers; one read from a file in
 * protobufjs's object form has names (`EVENT_TYPE_ACTIVITY_TASK_SCHEDULED`).
 */
function typeOf(event: HistoryEvent): temporal.api.enums.v1.EventType {
  const type: unknown = event.eventType;
  if (typeof type === 'number') return type;
  if (typeof type === 'string') return EventType[type as keyof typeof EventType] ?? EventType.EVENT_TYPE_UNSPECIFIED;
  return EventType.EVENT_TYPE_UNSPECIFIED;
}

/** A protobuf int64 (a number, a string or a Long) as a number. */
const count = (value: unknown): number => Number(value ?? 0) || 0;

/** Milliseconds of a protobuf Duration or Timestamp. */
const millis = (value: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  count(value?.seconds) * 1000 + (value?.nanos ?? 0) / 1e6;

/**
 * The SDK heartbeats a task held open by local activities (see TASK_HEARTBEAT_SHARE): it completes the task, and the
 * server schedules another in the same moment (after writing what arrived meanwhile: signals, activity results). A
 * task completed that late (a little slack below the share) and followed at once by a new one was heartbeated. Only
 * local activities hold a task that long; one that completed normally that late while something arrived would be
 * counted too (rare, and off by one).
 */
const HEARTBEAT_SHARE = TASK_HEARTBEAT_SHARE - 0.02;
/** "At once": the server writes the forced task's scheduling with the completion. */
const FORCED_WITHIN_MS = 100;

/**
 * The billable actions one run's history records, by kind, in the cost ledger's terms (`trace.cost.engineActions`
 * holds the same count made by the run itself): a start (a continued run's; a child's first run is its parent's
 * `childStarts`, two actions), each activity scheduled and each retry of it, one per workflow task whose completion
 * recorded local-activity markers (plus the local retries it reports) and one per heartbeat of a task that local
 * activities held open (a completion at the heartbeat point followed by a new task), timers, signals, accepted updates and
 * search-attribute upserts (not the patch-only ones). Add a chain's runs with `addEngineActions`; `engineActionsTotal`
 * weighs them as billed.
 */
export function countEngineActions(history: temporal.api.history.v1.IHistory | readonly HistoryEvent[]): EngineActions {
  const events: readonly HistoryEvent[] = Array.isArray(history)
    ? history
    : ((history as temporal.api.history.v1.IHistory).events ?? []);
  const actions = noEngineActions();
  const add = (kind: keyof EngineActions, amount = 1): void => {
    actions[kind] += amount;
  };
  // Local activities are billed per workflow task that reported them: markers of one task are one action.
  const localActivityTasks = new Set<string>();
  // A task completion made at the heartbeat point: a new task at once means it was a heartbeat.
  let completion: { id: string; atMs: number } | null = null;
  let taskTimeoutMs = DEFAULT_TASK_TIMEOUT_MS;
  let taskStartedMs = 0;
  for (const event of events) {
    const type = typeOf(event);
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED && completion !== null) {
      // Billed like the local activities' own task (docs.temporal.io/cloud/actions), unless it reported markers.
      const forced = millis(event.eventTime) - completion.atMs <= FORCED_WITHIN_MS;
      if (forced && !localActivityTasks.has(completion.id)) add('localActivityBatches');
      completion = null;
    }
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
      const atMs = millis(event.eventTime);
      completion = atMs - taskStartedMs >= HEARTBEAT_SHARE * taskTimeoutMs ? { id: String(event.eventId), atMs } : null;
    }
    if (type === EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED) taskStartedMs = millis(event.eventTime);
    switch (type) {
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: {
        // A child's first run was billed in its parent's history (the two actions of starting a child).
        const started = event.workflowExecutionStartedEventAttributes;
        if (!started?.parentWorkflowExecution || started.continuedExecutionRunId) add('workflowStarts');
        if (started?.workflowTaskTimeout)
          taskTimeoutMs = millis(started.workflowTaskTimeout) || DEFAULT_TASK_TIMEOUT_MS;
        break;
      }
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        add('activities');
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        // The started event of a retried activity is written once, with the attempt that finished it.
        const attempt = count(event.activityTaskStartedEventAttributes?.attempt);
        if (attempt > 1) add('activityRetries', attempt - 1);
        break;
      }
      case EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        const metering = event.workflowTaskCompletedEventAttributes?.meteringMetadata;
        add('localActivityRetries', count(metering?.nonfirstLocalActivityExecutionAttempts));
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED: {
        const marker = event.markerRecordedEventAttributes;
        if (!LOCAL_ACTIVITY_MARKERS.has(marker?.markerName ?? '')) break;
        const task = String(marker?.workflowTaskCompletedEventId ?? event.eventId);
        if (!localActivityTasks.has(task)) add('localActivityBatches');
        localActivityTasks.add(task);
        break;
      }
      case EventType.EVENT_TYPE_TIMER_STARTED:
        add('timers');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        add('signals');
        break;
      case EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        add('updates');
        break;
      case EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = Object.keys(
          event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {},
        );
        if (fields.some((name) => name !== CHANGE_VERSION)) add('searchAttributeUpserts');
        break;
      }
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        add('childStarts');
        break;
      default:
        break;
    }
  }
  return actions;
}

/** {@link countEngineActions} over every run of a continue-as-new chain, read from the server. */
export async function chainEngineActions(client: Client, workflowId: string): Promise<EngineActions> {
  let actions = noEngineActions();
  for (const runId of await chainRunIds(client, workflowId)) {
    actions = addEngineActions(
      actions,
      countEngineActions(await client.workflow.getHandle(workflowId, runId).fetchHistory()),
    );
  }
  return actions;
}
