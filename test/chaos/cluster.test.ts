import { afterAll, expect, inject, it } from 'vitest';
import { CLUSTER_FAULTS } from '../../chaos/scenarios/cluster';
import { RECONCILE_KILL_POINTS, reconcileScenario } from '../../chaos/scenarios/reconcile';
import { runScenario, type ChaosSizes } from '../../chaos/suite';
import { killAllWorkers } from '../../chaos/worker-process';

// The short version of `npm run chaos -- --only cluster`: three runs in flight during each fault.
const SIZES = { clusterRunsPerFault: 3 } as ChaosSizes;

afterAll(() => killAllWorkers());

it(
  'on a PostgreSQL cluster: history SIGKILLed, PostgreSQL restarted, one of two workers killed; all runs right, no duplicate effects',
  { timeout: 600_000 },
  async () => {
    const report = await runScenario(
      'cluster',
      { address: '', workflowBundlePath: inject('workflowBundlePath'), seed: 1, log: () => undefined },
      SIZES,
    );
    expect(report.failures).toEqual([]);
    const runs = CLUSTER_FAULTS.length * SIZES.clusterRunsPerFault;
    expect(report.records.filter((record) => record.completed && record.correct)).toHaveLength(runs);
    expect(report.counts.faults).toBe(CLUSTER_FAULTS.length);
    expect(report.duplicateEffects).toBe(0);
    expect(report.counts.appliedWrites).toBe(2 * runs); // each run's two entries, once each
    expect(report.notes).toEqual([
      expect.stringContaining('history SIGKILLed'),
      expect.stringContaining('PostgreSQL restarted'),
      expect.stringContaining('the worker holding a run SIGKILLed'),
    ]);
  },
);

it(
  'on a PostgreSQL cluster: a provider with no idempotency keys, the worker SIGKILLed at every step boundary; every uncertain call settled, nothing doubled or lost',
  { timeout: 600_000 },
  async () => {
    const runs = RECONCILE_KILL_POINTS.length;
    const report = await reconcileScenario(
      { address: '', workflowBundlePath: inject('workflowBundlePath'), seed: 1, log: () => undefined },
      { runs, lanes: 4, cluster: true },
    );
    expect(report.failures).toEqual([]);
    expect(report.records.filter((record) => record.completed && record.correct)).toHaveLength(runs);
    expect(report.counts).toMatchObject({ kills: runs, duplicateEffects: 0, lostEffects: 0, unresolved: 0 });
    expect(report.counts.appliedWrites).toBe(2 * runs); // each run's two entries, once each
    expect(report.counts).toMatchObject({ uncertain: 4, resolvedByReconcile: 2, resolvedByPerson: 2 });
  },
);
