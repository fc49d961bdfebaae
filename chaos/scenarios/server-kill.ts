import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AgentClient } from '../../src/client/agent-client';
import { KillableDevServer } from '../killable-server';
import { LEDGER_RUN_TURNS, ledgerPlan, ledgerResponder, ledgerQuery } from '../ledger-script';
import { sleep, trigger, waitForResult, within, type RunRecord } from '../measure';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { ledgerProblem, openKit, runRandom, settleRun, type ChaosContext, type ScenarioKit } from './kit';

const MODEL_DELAY_MS = 600;
const LEDGER_HOLD_MS = 200;
const RUN_DEADLINE_MS = 240_000;

/** Sizes of the server-kill scenario: one kill per run, runs one after another. */
export interface ServerKillOptions {
  runs: number;
}

/** Restarts the worker if the outage killed it (it should not), saying so in the notes. */
async function ensureWorker(worker: ChaosWorker, notes: string[]): Promise<ChaosWorker> {
  if (worker.running) return worker;
  notes.push(`worker exited during an outage (${worker.stderrTail()}); restarted`);
  return ChaosWorker.start(worker.spec);
}

/**
 * Server kill: ledger runs, each with the persisted dev server SIGKILLed at a random moment mid-run and started
 * again on the same SQLite file after a random pause. The worker process stays up throughout.
 */
export async function serverKillScenario(context: ChaosContext, options: ServerKillOptions): Promise<ScenarioReport> {
  const folder = await mkdtemp(path.join(os.tmpdir(), 'chaos-server-'));
  const server = await KillableDevServer.start(path.join(folder, 'temporal.db'));
  const failures: string[] = [];
  const notes: string[] = [];
  const records: RunRecord[] = [];
  let kit: ScenarioKit | undefined;
  let worker: ChaosWorker | undefined;
  let downtime = 0;
  let kills = 0;
  try {
    kit = await openKit(context, server.address, { holdMs: LEDGER_HOLD_MS });
    const taskQueue = `chaos-server-${randomUUID()}`;
    worker = await ChaosWorker.start(kit.workerSpec(taskQueue));
    const agents = new AgentClient({ client: kit.client, taskQueue });
    for (let index = 0; index < options.runs; index++) {
      const random = runRandom(context, 2, index);
      const plan = ledgerPlan(`server-${index}-${randomUUID().slice(0, 8)}`, random);
      const workflowId = `chaos-server-${index}-${randomUUID()}`;
      const model = `chaos-server-${index}-${randomUUID()}`;
      const kill = trigger();
      const targetTurn = random.int(1, LEDGER_RUN_TURNS - 1);
      const offset = random.int(0, MODEL_DELAY_MS + 400);
      kit.model.script(
        model,
        ledgerResponder(plan, {
          delayMs: MODEL_DELAY_MS,
          onRequest: (step) => void (step === targetTurn && kill.fire(offset)),
        }),
      );
      const startedAt = Date.now();
      const currentKit = kit;
      const outcome = (async () => {
        await agents.start(ledgerQuery(plan), { model, limits: { maxIterations: 12 } }, { workflowId });
        await within(kill.fired, 60_000, `the kill moment of ${workflowId}`);
        const down = Date.now();
        await server.kill();
        kills++;
        await sleep(random.int(0, 1000));
        await server.restart();
        downtime += Date.now() - down;
        const result = await waitForResult(agents, workflowId, startedAt + RUN_DEADLINE_MS);
        return ledgerProblem(currentKit, plan, result.finalAnswer);
      })();
      records.push(await settleRun(kit, workflowId, startedAt, outcome, failures));
      worker = await ensureWorker(worker, notes);
      context.log(`server kill: ${records.length}/${options.runs} runs done`);
    }
  } finally {
    await worker?.stop();
    await kit?.close();
    await server.stop().catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
  }
  const duplicateEffects = kit.ledger.duplicateEffects();
  if (duplicateEffects > 0) failures.push(`${duplicateEffects} duplicate ledger effects`);
  notes.unshift(`${kills} SIGKILLs of the dev server, ${Math.round(downtime / 100) / 10} s down in all`);
  const counts = { kills, appliedWrites: kit.ledger.applied().length };
  return { scenario: 'server kill', records, duplicateEffects, notes, failures, counts };
}
