import { describe, expect, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import { addEngineActions, countEngineActions, noEngineActions, type EngineActions } from '../../src/replay';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

const harness = useHarness();

/** The billed actions every run of a chain recorded, counted from the server's histories. */
async function actionsOf(workflowId: string): Promise<EngineActions> {
  let actions = noEngineActions();
  for (const runId of await chainRunIds(harness.client, workflowId)) {
    const history = await harness.client.workflow.getHandle(workflowId, runId).fetchHistory();
    actions = addEngineActions(actions, countEngineActions(history));
  }
  return actions;
}

/** `steps` calculator calls, then the answer. */
function steps(count: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: count }, (_, index) => ({
      thought: `Step ${index + 1}: the calculator gives the next figure exactly.`,
      toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
    })),
    { answer: 'Done.' },
  ];
}

describe('engine actions of a run', () => {
  it('a default 20-step run nobody follows: its start, its model calls and one start-time batch, no upsert', async () => {
    const run = await harness.start(steps(20), 'test query', { limits: { maxIterations: 21 } });
    expect((await run.result()).terminationReason).toBe('success');
    const actions = await actionsOf(run.workflowId);
    // The status the start set (Running) is not upserted to Completed: Temporal's own status says that.
    expect(actions.byKind.searchAttributeUpserts).toBe(0);
    expect(actions.byKind).toMatchObject({ workflowStarted: 1, activities: 21, localActivityBatches: 1 });
    expect(actions.total).toBe(23);
    const described = await harness.client.workflow.getHandle(run.workflowId).describe();
    expect(described.status.name).toBe('COMPLETED');
  });
});
