import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import { LATEST_RULE_SET } from '../../src/workflow/rule-sets';
import { useHarness } from '../support/harness';

// Every patch a run records is a marker plus a TemporalChangeVersion upsert that the server writes and indexes. A new
// run records only the newest rule-set generation's marker (issue 17); on the 1.0 baseline, which has none, nothing.

const harness = useHarness();
const thought = 'The calculator gives the exact product, so I use it before answering.';
const calc = (n: number) => ({ thought, toolCalls: [{ name: 'calculator', args: { expression: `${n}*2` } }] });

/** The patch IDs a run recorded, and the TemporalChangeVersion values it upserted, in order. */
async function versionsOf(workflowId: string, runId: string): Promise<{ patches: string[]; upserted: unknown[] }> {
  const history = await harness.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const patches: string[] = [];
  const upserted: unknown[] = [];
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName === 'core_patch') {
      const data = defaultPayloadConverter.fromPayload<{ id: string }>(marker.details!['patch-data']!.payloads![0]!);
      patches.push(data.id);
    }
    const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
    const version = fields?.TemporalChangeVersion;
    if (version) upserted.push(defaultPayloadConverter.fromPayload(version));
  }
  return { patches, upserted };
}

describe('version markers', () => {
  it("each run of a chain records at most one patch marker, the newest generation's, and upserts it once", async () => {
    const run = await harness.start([calc(1), calc(2), calc(3), { answer: 'done' }], 'q', {
      history: { maxStepsPerRun: 2 },
    });
    expect((await run.result()).terminationReason).toBe('success');
    const runIds = await chainRunIds(harness.client, run.workflowId);
    expect(runIds.length).toBe(2);
    const { marker } = LATEST_RULE_SET;
    const expected = marker === null ? { patches: [], upserted: [] } : { patches: [marker], upserted: [[marker]] };
    for (const runId of runIds) {
      expect(await versionsOf(run.workflowId, runId)).toEqual(expected);
    }
  });
});
