import type { ScenarioReport } from './report';
import type { ChaosContext } from './scenarios/kit';
import { clusterScenario } from './scenarios/cluster';
import { loadScenario } from './scenarios/load';
import { modelFaultScenario } from './scenarios/model-faults';
import { RECONCILE_KILL_POINTS, reconcileScenario } from './scenarios/reconcile';
import { serverKillScenario } from './scenarios/server-kill';
import { workerKillScenario } from './scenarios/worker-kill';

/** How big each scenario is. */
export interface ChaosSizes {
  workerKillRuns: number;
  /** Task queues, each with its own worker process, the worker-kill runs are spread over. */
  workerKillLanes: number;
  serverKillRuns: number;
  modelFaultRuns: number;
  loadRuns: number;
  loadSteps: number;
  /** Runs in flight during each of the cluster scenario's three faults. */
  clusterRunsPerFault: number;
  /** Reconcile runs, each killed at one step boundary in turn (at least one per boundary), and their lanes. */
  reconcileRuns: number;
  reconcileLanes: number;
}

/** The sizes the issue asks for (`npm run chaos`). */
export const DEFAULT_SIZES: ChaosSizes = {
  workerKillRuns: 50,
  workerKillLanes: 5,
  serverKillRuns: 10,
  modelFaultRuns: 100,
  loadRuns: 200,
  loadSteps: 10,
  clusterRunsPerFault: 10,
  reconcileRuns: 2 * RECONCILE_KILL_POINTS.length,
  reconcileLanes: 4,
};

/** The scenarios, in the order the suite runs them. */
export const SCENARIOS = ['worker-kill', 'server-kill', 'model-faults', 'load', 'cluster', 'reconcile'] as const;
/** One scenario's name, as `--only` takes it. */
export type ScenarioName = (typeof SCENARIOS)[number];

/** The default sizes times `scale` (every scenario keeps at least one run; steps per load run stay as they are). */
export function scaleSizes(scale: number, base: ChaosSizes = DEFAULT_SIZES): ChaosSizes {
  const runs = (count: number): number => Math.max(1, Math.round(count * scale));
  return {
    workerKillRuns: runs(base.workerKillRuns),
    workerKillLanes: Math.min(base.workerKillLanes, runs(base.workerKillRuns)),
    serverKillRuns: runs(base.serverKillRuns),
    modelFaultRuns: runs(base.modelFaultRuns),
    loadRuns: runs(base.loadRuns),
    loadSteps: base.loadSteps,
    clusterRunsPerFault: runs(base.clusterRunsPerFault),
    // Every step boundary keeps its kill, whatever the scale.
    reconcileRuns: Math.max(RECONCILE_KILL_POINTS.length, runs(base.reconcileRuns)),
    reconcileLanes: base.reconcileLanes,
  };
}

/** Runs one scenario at the given sizes. */
export function runScenario(name: ScenarioName, context: ChaosContext, sizes: ChaosSizes): Promise<ScenarioReport> {
  switch (name) {
    case 'worker-kill':
      return workerKillScenario(context, { runs: sizes.workerKillRuns, lanes: sizes.workerKillLanes });
    case 'server-kill':
      return serverKillScenario(context, { runs: sizes.serverKillRuns });
    case 'model-faults':
      return modelFaultScenario(context, { runs: sizes.modelFaultRuns });
    case 'load':
      return loadScenario(context, { runs: sizes.loadRuns, steps: sizes.loadSteps });
    case 'cluster':
      return clusterScenario(context, { runsPerFault: sizes.clusterRunsPerFault });
    case 'reconcile':
      return reconcileScenario(context, { runs: sizes.reconcileRuns, lanes: sizes.reconcileLanes });
  }
}

/** Runs the scenarios one after another (so load figures are not disturbed by the others) and returns their reports. */
export async function runChaosSuite(
  context: ChaosContext,
  sizes: ChaosSizes,
  only: readonly ScenarioName[] = SCENARIOS,
): Promise<ScenarioReport[]> {
  const reports: ScenarioReport[] = [];
  for (const name of SCENARIOS.filter((scenario) => only.includes(scenario))) {
    const started = Date.now();
    context.log(`${name}: starting`);
    reports.push(await runScenario(name, context, sizes));
    context.log(`${name}: finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  return reports;
}
