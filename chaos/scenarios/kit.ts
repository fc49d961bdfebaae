import { Client, Connection } from '@temporalio/client';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { expectedAnswer, expectedBalance, type LedgerPlan } from '../ledger-script';
import { startLedgerService, type LedgerService, type LedgerServiceOptions } from '../ledger-service';
import { activityRetries, describeError, type RunRecord } from '../measure';
import { seededRandom, type Random } from '../random';
import type { ChaosWorkerSpec } from '../worker-process';

/** What every scenario gets from the suite: the Temporal server to use, the workflow bundle, the seed, a logger. */
export interface ChaosContext {
  /** The Temporal frontend for the scenarios that do not bring their own server. */
  address: string;
  workflowBundlePath: string;
  seed: number;
  log(line: string): void;
}

/** A scenario's own connections and fakes: a Temporal client, the scripted model and the ledger. */
export interface ScenarioKit {
  client: Client;
  model: ScriptedModelServer;
  ledger: LedgerService;
  /** Settings for a chaos worker on `taskQueue` talking to this kit's model and ledger. */
  workerSpec(taskQueue: string, extra?: Partial<ChaosWorkerSpec>): ChaosWorkerSpec;
  close(): Promise<void>;
}

/** Opens a kit against `address` (the suite's server unless the scenario runs its own). */
export async function openKit(
  context: ChaosContext,
  address: string,
  ledgerOptions: LedgerServiceOptions = {},
): Promise<ScenarioKit> {
  const connection = await Connection.connect({ address });
  const model = await startScriptedModel();
  const ledger = await startLedgerService(ledgerOptions);
  return {
    client: new Client({ connection }),
    model,
    ledger,
    workerSpec: (taskQueue, extra = {}) => ({
      address,
      taskQueue,
      modelBaseURL: model.baseURL,
      ledgerURL: ledger.url,
      workflowBundlePath: context.workflowBundlePath,
      ...extra,
    }),
    async close() {
      await connection.close();
      await model.close();
      await ledger.close();
    },
  };
}

/** The random source of run `index`, so a seed replays each run's faults whatever order the runs finish in. */
export const runRandom = (context: ChaosContext, scenario: number, index: number): Random =>
  seededRandom(context.seed * 7919 + scenario * 100_003 + index);

/**
 * Waits for `outcome` (undefined when the run was right, else what was wrong) and makes the run's record; a run that
 * failed or hung is terminated and its error added to `failures`.
 */
export async function settleRun(
  kit: ScenarioKit,
  workflowId: string,
  startedAt: number,
  outcome: Promise<string | undefined>,
  failures: string[],
): Promise<RunRecord> {
  let completed = false;
  let problem: string | undefined;
  try {
    problem = await outcome;
    completed = true;
  } catch (error) {
    problem = describeError(error);
    await kit.client.workflow
      .getHandle(workflowId)
      .terminate('chaos suite gave up on this run')
      .catch(() => undefined);
  }
  const durationMs = Date.now() - startedAt;
  if (problem !== undefined) failures.push(`${workflowId}: ${problem}`);
  const retries = await activityRetries(kit.client, workflowId).catch(() => 0);
  return { workflowId, durationMs, completed, correct: completed && problem === undefined, retries };
}

/** Checks a finished ledger run: the answer the model gave and the balance the ledger holds (undefined when right). */
export function ledgerProblem(kit: ScenarioKit, plan: LedgerPlan, finalAnswer: string | null): string | undefined {
  if (finalAnswer !== expectedAnswer(plan)) return `answer "${finalAnswer}", expected "${expectedAnswer(plan)}"`;
  const balance = kit.ledger.balance(plan.account);
  if (balance !== expectedBalance(plan)) return `ledger balance ${balance}, expected ${expectedBalance(plan)}`;
  return undefined;
}
