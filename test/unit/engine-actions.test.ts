import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { countEngineActions, engineActionsTotal } from '../../src/replay';
import { loadHistoryFile } from '../../src/replay/recording';
import { HISTORIES_DIR } from '../support/histories';

const EventType = temporal.api.enums.v1.EventType;
const history = (name: string) => loadHistoryFile(path.join(HISTORIES_DIR, name)).history;

describe('countEngineActions', () => {
  it('bills an approval run its start, local-activity batches, activities, upserts, timer and update', () => {
    // approve.json: the start task's local activity (prepareRun) is one batch and the approved tool, a local one,
    // another; the model twice; three status upserts (waiting, running again, completed), the memo's changes free; the
    // approval's timeout timer and the decision's update.
    const actions = countEngineActions(history('approve.json'));
    expect(actions).toMatchObject({
      workflowStarts: 1,
      localActivityBatches: 2,
      activities: 2,
      searchAttributeUpserts: 3,
      timers: 1,
      updates: 1,
      childStarts: 0,
    });
    expect(engineActionsTotal(actions)).toBe(10);
  });

  it('bills a subagent two actions and a quiet one-step run five', () => {
    const parent = countEngineActions(history('subagent.json'));
    expect(parent.childStarts).toBe(1);
    expect(engineActionsTotal(parent) - engineActionsTotal({ ...parent, childStarts: 0 })).toBe(2);
    expect(engineActionsTotal(countEngineActions(history('success.json')))).toBe(5);
  });

  it('bills retries: an activity by its last attempt, local activities by the metering the task reported', () => {
    // Numbers where the proto types say Long: a history read from JSON has them so, and the count takes both.
    const events = [
      { eventId: 1, eventType: EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED },
      { eventId: 4, eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, workflowTaskCompletedEventAttributes: {} },
      { eventId: 5, eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED },
      {
        eventId: 6,
        eventType: EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
        activityTaskStartedEventAttributes: { attempt: 3 },
      },
      {
        eventId: 9,
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
        workflowTaskCompletedEventAttributes: { meteringMetadata: { nonfirstLocalActivityExecutionAttempts: 2 } },
      },
      ...[10, 11].map((eventId) => ({
        eventId,
        eventType: EventType.EVENT_TYPE_MARKER_RECORDED,
        markerRecordedEventAttributes: { markerName: 'core_local_activity', workflowTaskCompletedEventId: 9 },
      })),
      {
        eventId: 12,
        eventType: EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES,
        upsertWorkflowSearchAttributesEventAttributes: {
          searchAttributes: { indexedFields: { TemporalChangeVersion: {} } },
        },
      },
    ] as unknown as temporal.api.history.v1.IHistoryEvent[];
    expect(countEngineActions(events)).toMatchObject({
      workflowStarts: 1,
      activities: 1,
      activityRetries: 2,
      localActivityBatches: 1,
      localActivityRetries: 2,
      searchAttributeUpserts: 0,
    });
    expect(engineActionsTotal(countEngineActions(events))).toBe(7);
  });
});
