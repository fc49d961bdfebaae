import { randomUUID } from 'node:crypto';
import { AgentClient } from '../../src/client/agent-client';
import type { AgentConfig } from '../../src/shared/agent-config';
import { LEDGER_TOOL } from '../ledger-tool';
import { LEDGER_RUN_TURNS, LEDGER_RUN_WRITES, ledgerPlan, ledgerResponder, ledgerQuery } from '../ledger-script';
import { trigger, waitForApproval, waitForResult, within, type RunRecord } from '../measure';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { ledgerProblem, openKit, runRandom, settleRun, type ChaosContext, type ScenarioKit } from './kit';

/** Where a run is when its worker dies. */
export type KillPhase = 'model' | 'tool' | 'approval';
const PHASES: readonly KillPhase[] = ['model', 'tool', 'approval'];

/** Every model reply takes this long, so a kill can land inside a model call. */
const MODEL_DELAY_MS = 800;
/** The ledger holds each check and each write's receipt this long, so a kill can land inside a tool call. */
const LEDGER_HOLD_MS = 400;
/** A run gets this long to finish, kill and recovery included (a killed model call waits out a 20 s heartbeat timeout). */
const RUN_DEADLINE_MS = 180_000;

/** Sizes of the worker-kill scenario: runs, spread over `lanes` task queues that each have one worker process. */
export interface WorkerKillOptions {
  runs: number;
  lanes: number;
}

/** One lane: a task queue whose worker process is SIGKILLed once per run and restarted at once. */
class Lane {
  private worker: ChaosWorker | undefined;
  readonly taskQueue = `chaos-kill-${randomUUID()}`;
  readonly agents: AgentClient;

  constructor(private readonly kit: ScenarioKit) {
    this.agents = new AgentClient({ client: kit.client, taskQueue: this.taskQueue });
  }

  async start(): Promise<void> {
    this.worker = await ChaosWorker.start(this.kit.workerSpec(this.taskQueue));
  }

  async killAndRestart(): Promise<void> {
    if (this.worker && !this.worker.running) throw new Error(`worker died on its own: ${this.worker.stderrTail()}`);
    await this.worker?.kill();
    await this.start();
  }

  async stop(): Promise<void> {
    await this.worker?.stop();
  }
}

/** SIGKILLs dealt, by where the run was. */
type KillCounts = Record<KillPhase, number>;

async function killedRun(
  context: ChaosContext,
  kit: ScenarioKit,
  lane: Lane,
  index: number,
  kills: KillCounts,
  failures: string[],
): Promise<RunRecord> {
  const random = runRandom(context, 1, index);
  const phase = PHASES[index % PHASES.length] ?? 'model';
  const plan = ledgerPlan(`kill-${index}-${randomUUID().slice(0, 8)}`, random);
  const workflowId = `chaos-kill-${index}-${randomUUID()}`;
  const model = `chaos-kill-${index}-${randomUUID()}`;
  const kill = trigger();
  const targetTurn = random.int(0, LEDGER_RUN_TURNS - 1);
  const modelOffset = random.int(50, MODEL_DELAY_MS - 150);
  kit.model.script(
    model,
    ledgerResponder(plan, {
      delayMs: MODEL_DELAY_MS,
      onRequest: (step) => void (phase === 'model' && step === targetTurn && kill.fire(modelOffset)),
    }),
  );
  const targetWrite = random.int(0, LEDGER_RUN_WRITES - 1);
  let checks = 0;
  // Keys start with the run chain's first run ID, known once the run has started (its first model reply is slower).
  let keyPrefix: string | undefined;
  const stopListening = kit.ledger.onRequest(({ kind, idempotencyKey }) => {
    if (phase !== 'tool' || kind !== 'check' || keyPrefix === undefined || !idempotencyKey.startsWith(keyPrefix))
      return;
    // From the check's arrival the kill can land before the write is applied or after it, before its receipt.
    if (checks++ === targetWrite) kill.fire(random.int(0, 2 * LEDGER_HOLD_MS - 50));
  });
  const startedAt = Date.now();
  const outcome = (async () => {
    const config: AgentConfig = {
      model,
      limits: { maxIterations: 12 },
      ...(phase === 'approval' ? { approvals: { require: [LEDGER_TOOL] } } : {}),
    };
    await lane.agents.start(ledgerQuery(plan), config, { workflowId });
    const { raw } = await lane.agents.client.workflow.getHandle(workflowId).describe();
    keyPrefix = `${raw.workflowExecutionInfo?.firstRunId ?? workflowId}:`;
    let callId: string | undefined;
    if (phase === 'approval') {
      callId = (await waitForApproval(lane.agents, workflowId, 60_000)).approvals[0]?.callId;
      kill.fire(random.int(0, 500));
    }
    await within(kill.fired, 60_000, `the ${phase} kill moment of ${workflowId}`);
    await lane.killAndRestart();
    kills[phase]++;
    // Approved only after the restart, so the decision reaches a worker that never saw the run.
    if (callId) await lane.agents.handle(workflowId).approve(callId, { always: true });
    const result = await waitForResult(lane.agents, workflowId, startedAt + RUN_DEADLINE_MS);
    return ledgerProblem(kit, plan, result.finalAnswer);
  })();
  try {
    return await settleRun(kit, workflowId, startedAt, outcome, failures);
  } finally {
    stopListening();
  }
}

/**
 * Worker kill: ledger runs whose worker process is SIGKILLed once each, at a random moment of a model call, a tool
 * call or an approval wait (taken in turn), and restarted at once. Every run must finish with the right answer and
 * the ledger must hold each entry exactly once.
 */
export async function workerKillScenario(context: ChaosContext, options: WorkerKillOptions): Promise<ScenarioReport> {
  const kit = await openKit(context, context.address, { holdMs: LEDGER_HOLD_MS });
  const failures: string[] = [];
  const records: RunRecord[] = [];
  const kills: KillCounts = { model: 0, tool: 0, approval: 0 };
  const laneCount = Math.max(1, Math.min(options.lanes, options.runs));
  const lanes = Array.from({ length: laneCount }, () => new Lane(kit));
  try {
    await Promise.all(
      lanes.map(async (lane, laneIndex) => {
        await lane.start();
        for (let index = laneIndex; index < options.runs; index += laneCount) {
          records.push(await killedRun(context, kit, lane, index, kills, failures));
          context.log(`worker kill: ${records.length}/${options.runs} runs done`);
        }
      }),
    );
  } finally {
    await Promise.all(lanes.map((lane) => lane.stop()));
    await kit.close();
  }
  const duplicateEffects = kit.ledger.duplicateEffects();
  if (duplicateEffects > 0) failures.push(`${duplicateEffects} duplicate ledger effects`);
  const retried = `${kit.ledger.retriedKeys()} ledger writes retried after a kill, ${kit.ledger.replays()} of them already applied`;
  const notes = [`SIGKILLs during: ${PHASES.map((phase) => `${kills[phase]} ${phase}`).join(', ')}`, retried];
  const counts = {
    kills: kills.model + kills.tool + kills.approval,
    retriedWrites: kit.ledger.retriedKeys(),
    replayedWrites: kit.ledger.replays(),
    appliedWrites: kit.ledger.applied().length,
  };
  return { scenario: 'worker kill', records, duplicateEffects, notes, failures, counts };
}
