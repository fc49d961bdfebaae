import { randomUUID } from 'node:crypto';
import { AgentClient } from '../../src/client/agent-client';
import { startCluster, type TemporalCluster } from '../../src/dev/cluster/cluster';
import { freePort } from '../../src/testing/free-port';
import { LEDGER_RUN_TURNS, ledgerPlan, ledgerResponder, ledgerQuery } from '../ledger-script';
import { sleep, trigger, waitForResult, within, type RunRecord } from '../measure';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { ledgerProblem, openKit, runRandom, settleRun, type ChaosContext, type ScenarioKit } from './kit';

const MODEL_DELAY_MS = 400;
const LEDGER_HOLD_MS = 200;
/** A run gets this long, fault and recovery included (a killed worker's model call waits out its heartbeat timeout). */
const RUN_DEADLINE_MS = 240_000;

/** The faults, one phase each, in this order. */
export const CLUSTER_FAULTS = ['history-kill', 'postgres-restart', 'worker-kill'] as const;
/** One of {@link CLUSTER_FAULTS}. */
export type ClusterFault = (typeof CLUSTER_FAULTS)[number];

/** Sizes of the cluster scenario: runs in flight at once during each fault. */
export interface ClusterChaosOptions {
  runsPerFault: number;
}

interface Phase {
  cluster: TemporalCluster;
  kit: ScenarioKit;
  agents: AgentClient;
  /** The two live workers; the worker-kill fault ends one and starts a replacement for the next phase. */
  workers: ChaosWorker[];
}

/**
 * The worker holding a run: the identity (`pid@host`, the SDK's default) that completed its latest workflow task.
 * Activities start eagerly on the worker that scheduled them, and the run's next tasks stick to it.
 */
async function holderOf(phase: Phase, workflowId: string): Promise<ChaosWorker | undefined> {
  const { events } = await phase.kit.client.workflow.getHandle(workflowId).fetchHistory();
  const completed = (events ?? []).filter((event) => event.workflowTaskCompletedEventAttributes);
  const identity = completed.at(-1)?.workflowTaskCompletedEventAttributes?.identity;
  return phase.workers.find((worker) => identity?.startsWith(`${worker.pid}@`));
}

/** Deals one fault to the cluster or to the worker holding `target`; returns a line for the notes. */
async function deal(fault: ClusterFault, phase: Phase, target: string, pauseMs: number): Promise<string> {
  const started = Date.now();
  switch (fault) {
    case 'history-kill':
      await phase.cluster.services.kill('history');
      await sleep(pauseMs);
      await phase.cluster.restart('history');
      return `history SIGKILLed, back serving after ${Date.now() - started} ms`;
    case 'postgres-restart':
      await phase.cluster.postgres.stop();
      await sleep(pauseMs);
      await phase.cluster.postgres.restart();
      return `PostgreSQL restarted (fast shutdown), down ${Date.now() - started} ms`;
    case 'worker-kill': {
      // The worker in the middle of the target run, so at least that run must move: the other worker takes its
      // workflow tasks after the sticky timeout and its activities after their heartbeat or start-to-close timeouts.
      const holder = await holderOf(phase, target);
      if (!holder) throw new Error(`no worker of ours completed a workflow task of ${target}`);
      await holder.kill();
      return 'the worker holding a run SIGKILLed (one of two), the other finished its runs';
    }
  }
}

/** One phase: `runs` ledger runs in flight, the fault dealt when one of them reaches a random model turn. */
async function faultPhase(
  context: ChaosContext,
  phase: Phase,
  fault: ClusterFault,
  runs: number,
  failures: string[],
): Promise<{ records: RunRecord[]; note: string }> {
  const index = CLUSTER_FAULTS.indexOf(fault);
  const random = runRandom(context, 5, index);
  const fire = trigger();
  let target = '';
  const targetTurn = random.int(1, LEDGER_RUN_TURNS - 1);
  const offset = random.int(0, MODEL_DELAY_MS + LEDGER_HOLD_MS);
  const settled = Array.from({ length: runs }, async (_, run) => {
    const plan = ledgerPlan(`cluster-${fault}-${run}-${randomUUID().slice(0, 8)}`, runRandom(context, 6 + index, run));
    const workflowId = `chaos-cluster-${fault}-${run}-${randomUUID()}`;
    if (run === 0) target = workflowId;
    const model = `chaos-cluster-${fault}-${run}-${randomUUID()}`;
    phase.kit.model.script(
      model,
      ledgerResponder(plan, {
        delayMs: MODEL_DELAY_MS,
        onRequest: (step) => void (run === 0 && step === targetTurn && fire.fire(offset)),
      }),
    );
    const startedAt = Date.now();
    const outcome = (async () => {
      await phase.agents.start(ledgerQuery(plan), { model, limits: { maxIterations: 12 } }, { workflowId });
      const result = await waitForResult(phase.agents, workflowId, startedAt + RUN_DEADLINE_MS);
      return ledgerProblem(phase.kit, plan, result.finalAnswer);
    })();
    return settleRun(phase.kit, workflowId, startedAt, outcome, failures);
  });
  await within(fire.fired, 60_000, `the ${fault} moment`);
  const note = await deal(fault, phase, target, random.int(200, 1500));
  return { records: await Promise.all(settled), note };
}

/**
 * The production topology under faults: ledger runs on a PostgreSQL-backed cluster (one process per service, 4
 * history shards) served by two workers, while the history service is SIGKILLed and restarted, PostgreSQL is
 * restarted, and one of the two workers is SIGKILLed. Every run must finish right, every ledger entry once.
 */
export async function clusterScenario(context: ChaosContext, options: ClusterChaosOptions): Promise<ScenarioReport> {
  const failures: string[] = [];
  const notes: string[] = [];
  const records: RunRecord[] = [];
  const cluster = await startCluster({
    shards: 4,
    port: await freePort(),
    log: (line) => context.log(`cluster: ${line}`),
  });
  let kit: ScenarioKit | undefined;
  const started: ChaosWorker[] = [];
  let faults = 0;
  try {
    kit = await openKit(context, cluster.address, { holdMs: LEDGER_HOLD_MS });
    const taskQueue = `chaos-cluster-${randomUUID()}`;
    const startWorker = async (): Promise<ChaosWorker> => {
      const worker = await ChaosWorker.start((kit as ScenarioKit).workerSpec(taskQueue));
      started.push(worker);
      return worker;
    };
    const phase: Phase = {
      cluster,
      kit,
      agents: new AgentClient({ client: kit.client, taskQueue }),
      workers: [await startWorker(), await startWorker()],
    };
    for (const fault of CLUSTER_FAULTS) {
      const result = await faultPhase(context, phase, fault, options.runsPerFault, failures);
      records.push(...result.records);
      notes.push(result.note);
      faults++;
      context.log(`cluster: ${fault} phase done (${records.length} runs)`);
      const dead = phase.workers.filter((worker) => !worker.running);
      if (fault !== 'worker-kill')
        for (const worker of dead) failures.push(`a worker died during ${fault}: ${worker.stderrTail()}`);
      // Two live workers again for the next phase.
      phase.workers = phase.workers.filter((worker) => worker.running);
      while (phase.workers.length < 2) phase.workers.push(await startWorker());
    }
  } finally {
    try {
      await Promise.all(started.map((worker) => worker.stop()));
      await kit?.close();
    } finally {
      await cluster.stop();
    }
  }
  const duplicateEffects = kit.ledger.duplicateEffects();
  if (duplicateEffects > 0) failures.push(`${duplicateEffects} duplicate ledger effects`);
  const counts = { faults, appliedWrites: kit.ledger.applied().length, retriedWrites: kit.ledger.retriedKeys() };
  return { scenario: 'cluster faults', records, duplicateEffects, notes, failures, counts };
}
