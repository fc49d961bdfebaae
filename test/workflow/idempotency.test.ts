import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import type { ReActResult } from '../../src/shared/types';
import { useHarness } from '../support/harness';
import { firstRunIdOf, recordedEffects } from '../support/test-tools';

const harness = useHarness();
const thought = 'The audit needs one ledger entry per run, so this run writes its entry now.';
const record = (label: string): ScriptedTurn => ({ thought, toolCalls: [{ name: 'record_effect', args: { label } }] });

/** The idempotency key each `record_effect` step of a result ran with, as the tool reported it. */
function keysOf(result: ReActResult): string[] {
  return result.trace.steps.flatMap((step) => {
    const data = step.observationData as { idempotencyKey?: string } | undefined;
    return data?.idempotencyKey ? [data.idempotencyKey] : [];
  });
}

describe('idempotency keys', () => {
  it('two runs that reuse a workflow ID get different keys, so both effects happen', async () => {
    const workflowId = `reused-${randomUUID()}`;
    const firstRunIds: string[] = [];
    const keys: string[] = [];
    for (const label of ['first', 'second']) {
      const modelName = `idempotency-${label}-${randomUUID()}`;
      harness.model.script(modelName, [record(label), { answer: `recorded ${label}` }]);
      const run = await harness.agents.start('record the effect', { model: modelName }, { workflowId });
      firstRunIds.push(await firstRunIdOf(harness.client, workflowId));
      keys.push(...keysOf(await run.result()));
    }
    expect(firstRunIds[0]).not.toBe(firstRunIds[1]);
    expect(keys).toEqual([`${firstRunIds[0]}:c1-1`, `${firstRunIds[1]}:c1-1`]);
    expect(keys.map((key) => recordedEffects.get(key))).toEqual([1, 1]);
  });

  it('a continue-as-new chain keeps one key prefix: the first run ID', async () => {
    const run = await harness.start([record('a'), record('b'), record('c'), { answer: 'all recorded' }], 'q', {
      history: { maxStepsPerRun: 2 },
    });
    const result = await run.result();
    expect(result.trace.run).toBe(2);
    const runIds = await chainRunIds(harness.client, run.workflowId);
    expect(runIds).toHaveLength(2);
    expect(runIds[0]).toBe(run.firstRunId);
    expect(keysOf(result)).toEqual([`${run.firstRunId}:c1-1`, `${run.firstRunId}:c2-1`, `${run.firstRunId}:c3-1`]);
  });
});
