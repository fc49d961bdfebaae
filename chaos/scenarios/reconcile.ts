import { randomUUID } from 'node:crypto';
import { AgentClient } from '../../src/client/agent-client';
import { startCluster, type TemporalCluster } from '../../src/dev/cluster/cluster';
import type { ReActResult } from '../../src/shared/types';
import { LEDGER_RUN_TURNS, ledgerPlan, ledgerResponder, ledgerQuery, type LedgerPlan } from '../ledger-script';
import { PAYMENT_TOOL } from '../ledger-tool';
import { sleep, trigger, waitForResult, within, type RunRecord } from '../measure';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { ledgerProblem, openKit, runRandom, settleRun, type ChaosContext, type ScenarioKit } from './kit';
import { freePort } from '../../src/testing/free-port';

/**
 * Where a run's worker dies: inside each model call, and inside each payment before the provider applies it or after
 * it applied it but before the receipt reached the worker. Every step boundary of a ledger run, one per run, in turn.
 */
export const RECONCILE_KILL_POINTS = [
  ...Array.from({ length: LEDGER_RUN_TURNS }, (_, turn) => `model-${turn}`),
  'pay-0-before',
  'pay-0-after',
  'pay-1-before',
  'pay-1-after',
] as const;

/**
 * Kill points whose payment the provider cannot find again (its search answers 503): reconcile says `unknown` and a
 * person decides, one each way (the payment was not applied; it was).
 */
const UNSEARCHABLE_AT: ReadonlySet<string> = new Set(['pay-0-before', 'pay-1-after']);

const MODEL_DELAY_MS = 800;
/** The provider holds a payment this long before applying it and again before answering. */
const PAYMENT_HOLD_MS = 400;
const RUN_DEADLINE_MS = 180_000;

/** Sizes: runs (taken over the kill points in turn, so a multiple of their count covers each equally) and lanes. */
export interface ReconcileChaosOptions {
  runs: number;
  lanes: number;
  /** Run on a PostgreSQL-backed cluster of the scenario's own (`src/dev/cluster/`) instead of the suite's server. */
  cluster?: boolean;
}

/** What became of the uncertain calls, read from the runs' traces. */
interface UncertainCounts {
  uncertain: number;
  byReconcile: number;
  /** Of those, the ones reconcile found paid (the rest it found unpaid, and they ran again). */
  foundDone: number;
  byPerson: number;
  unresolved: number;
}

/** Counts a finished run's uncertain calls and how each was settled. */
function countUncertain(result: ReActResult, counts: UncertainCounts): void {
  for (const step of result.trace.steps) {
    const effect = step.effect;
    if (!effect?.mayHaveHappened) continue;
    counts.uncertain++;
    if (effect.decision) counts.byPerson++;
    else if (effect.reconcile === 'done' || effect.reconcile === 'not_done') {
      counts.byReconcile++;
      if (effect.reconcile === 'done') counts.foundDone++;
    } else counts.unresolved++;
  }
}

/** Entries of a plan the provider never applied: each run posts its product and its bonus once. */
function lostEffects(kit: ScenarioKit, plan: LedgerPlan): number {
  const entries = new Set(
    kit.ledger
      .applied()
      .filter((effect) => effect.account === plan.account)
      .map((effect) => effect.entry),
  );
  return ['product', 'bonus'].filter((entry) => !entries.has(entry)).length;
}

interface Lane {
  taskQueue: string;
  agents: AgentClient;
  worker?: ChaosWorker;
}

/**
 * The person of this scenario: watches a run's pending items and settles each `uncertain_effect` one through the
 * real `decide` path, as an operator would after looking the payment up in the provider's dashboard: treat it as
 * done with the receipt found, or run it again when there is none.
 */
async function personWatching(
  lane: Lane,
  kit: ScenarioKit,
  workflowId: string,
  keyPrefix: () => string | undefined,
  done: () => boolean,
  decided: { count: number },
): Promise<void> {
  const seen = new Set<string>();
  while (!done()) {
    const pending = await lane.agents
      .handle(workflowId)
      .getPending()
      .catch(() => null);
    for (const call of pending?.approvals ?? []) {
      if (call.reason !== 'uncertain_effect' || seen.has(call.callId)) continue;
      seen.add(call.callId);
      const reference = `${keyPrefix() ?? ''}${call.callId.split(':')[0]}`;
      const [receipt] = kit.ledger.paymentsByReference(reference);
      await (receipt
        ? lane.agents.handle(workflowId).respond(call.callId, JSON.stringify(receipt))
        : lane.agents.handle(workflowId).approve(call.callId));
      decided.count++;
    }
    await sleep(250);
  }
}

async function killedRun(
  context: ChaosContext,
  kit: ScenarioKit,
  lane: Lane,
  index: number,
  totals: UncertainCounts & { lost: number; personDecisions: number },
  failures: string[],
): Promise<RunRecord> {
  const random = runRandom(context, 7, index);
  const point = RECONCILE_KILL_POINTS[index % RECONCILE_KILL_POINTS.length]!;
  const plan = ledgerPlan(`reconcile-${index}-${randomUUID().slice(0, 8)}`, random);
  const workflowId = `chaos-reconcile-${index}-${randomUUID()}`;
  const model = `chaos-reconcile-${index}-${randomUUID()}`;
  const kill = trigger();
  kit.model.script(
    model,
    ledgerResponder(plan, {
      tool: PAYMENT_TOOL,
      delayMs: MODEL_DELAY_MS,
      onRequest: (step) => void (point === `model-${step}` && kill.fire(random.int(50, MODEL_DELAY_MS - 150))),
    }),
  );
  let keyPrefix: string | undefined;
  let payments = 0;
  const stopListening = kit.ledger.onRequest(({ kind, idempotencyKey }) => {
    if (kind !== 'pay' || keyPrefix === undefined || !idempotencyKey.startsWith(keyPrefix)) return;
    const payment = payments++;
    // Before: while the provider holds the request, before applying it. After: applied, the receipt not yet sent.
    if (point === `pay-${payment}-before`) kill.fire(random.int(50, PAYMENT_HOLD_MS - 100));
    if (point === `pay-${payment}-after`) kill.fire(PAYMENT_HOLD_MS + random.int(50, PAYMENT_HOLD_MS - 100));
  });
  let finished = false;
  const decided = { count: 0 };
  const startedAt = Date.now();
  const outcome = (async () => {
    await lane.agents.start(ledgerQuery(plan), { model, limits: { maxIterations: 12 } }, { workflowId });
    const { raw } = await lane.agents.client.workflow.getHandle(workflowId).describe();
    keyPrefix = `${raw.workflowExecutionInfo?.firstRunId ?? workflowId}:`;
    if (UNSEARCHABLE_AT.has(point)) unsearchable.add(keyPrefix);
    const person = personWatching(
      lane,
      kit,
      workflowId,
      () => keyPrefix,
      () => finished,
      decided,
    );
    try {
      await within(kill.fired, 60_000, `the ${point} kill moment of ${workflowId}`);
      await lane.worker?.kill();
      lane.worker = await ChaosWorker.start(kit.workerSpec(lane.taskQueue));
      const result = await waitForResult(lane.agents, workflowId, startedAt + RUN_DEADLINE_MS);
      countUncertain(result, totals);
      return ledgerProblem(kit, plan, result.finalAnswer);
    } finally {
      finished = true;
      await person;
    }
  })();
  try {
    const record = await settleRun(kit, workflowId, startedAt, outcome, failures);
    totals.lost += lostEffects(kit, plan);
    totals.personDecisions += decided.count;
    return record;
  } finally {
    stopListening();
  }
}

/** References (by their run's key prefix) whose payment search fails; shared with the ledger's `unsearchable`. */
const unsearchable = new Set<string>();

/**
 * Exactly once with evidence (issue 36): ledger runs whose payments go through a provider with no idempotency keys
 * (`ledger_pay`, which reconciles by searching payments by reference), each run's worker SIGKILLed at one step
 * boundary in turn. Some payments cannot be searched, so reconcile says `unknown` and a person settles them through
 * `decide`. Every run must end right, with 0 duplicate and 0 lost effects, and every uncertain call settled.
 */
export async function reconcileScenario(
  context: ChaosContext,
  options: ReconcileChaosOptions,
): Promise<ScenarioReport> {
  let cluster: TemporalCluster | undefined;
  if (options.cluster)
    cluster = await startCluster({ shards: 4, port: await freePort(), log: (line) => context.log(`cluster: ${line}`) });
  const failures: string[] = [];
  const records: RunRecord[] = [];
  const totals = {
    uncertain: 0,
    byReconcile: 0,
    foundDone: 0,
    byPerson: 0,
    unresolved: 0,
    lost: 0,
    personDecisions: 0,
  };
  let kit: ScenarioKit | undefined;
  const lanes: Lane[] = [];
  try {
    kit = await openKit(context, cluster?.address ?? context.address, {
      holdMs: PAYMENT_HOLD_MS,
      unsearchable: (reference) => [...unsearchable].some((prefix) => reference.startsWith(prefix)),
    });
    const opened = kit;
    const laneCount = Math.max(1, Math.min(options.lanes, options.runs));
    for (let index = 0; index < laneCount; index++) {
      const taskQueue = `chaos-reconcile-${randomUUID()}`;
      lanes.push({ taskQueue, agents: new AgentClient({ client: opened.client, taskQueue }) });
    }
    await Promise.all(
      lanes.map(async (lane, laneIndex) => {
        lane.worker = await ChaosWorker.start(opened.workerSpec(lane.taskQueue));
        for (let index = laneIndex; index < options.runs; index += laneCount) {
          records.push(await killedRun(context, opened, lane, index, totals, failures));
          context.log(`reconcile: ${records.length}/${options.runs} runs done`);
        }
      }),
    );
  } finally {
    try {
      await Promise.all(lanes.map((lane) => lane.worker?.stop() ?? Promise.resolve()));
      await kit?.close();
    } finally {
      await cluster?.stop();
    }
  }
  const duplicateEffects = kit.ledger.duplicateEffects();
  if (duplicateEffects > 0) failures.push(`${duplicateEffects} duplicate effects`);
  if (totals.lost > 0) failures.push(`${totals.lost} lost effects`);
  if (totals.unresolved > 0)
    failures.push(`${totals.unresolved} uncertain calls settled by neither reconcile nor a person`);
  if (totals.byPerson !== totals.personDecisions)
    failures.push(`${totals.personDecisions} decisions sent, ${totals.byPerson} recorded in the traces`);
  const notes = [
    `SIGKILLs at ${Math.min(options.runs, RECONCILE_KILL_POINTS.length)} step boundaries${options.cluster ? ' (PostgreSQL cluster)' : ''}`,
    `${totals.uncertain} uncertain calls: ${totals.byReconcile} settled by reconcile (${totals.foundDone} found done, ${totals.byReconcile - totals.foundDone} not done), ${totals.byPerson} by a person`,
    `${totals.lost} lost effects`,
  ];
  const counts = {
    kills: records.length,
    appliedWrites: kit.ledger.applied().length,
    duplicateEffects,
    lostEffects: totals.lost,
    uncertain: totals.uncertain,
    resolvedByReconcile: totals.byReconcile,
    reconcileFoundDone: totals.foundDone,
    resolvedByPerson: totals.byPerson,
    unresolved: totals.unresolved,
    failedSearches: kit.ledger.failedSearches(),
  };
  return {
    scenario: options.cluster ? 'reconcile (cluster)' : 'reconcile',
    records,
    duplicateEffects,
    notes,
    failures,
    counts,
  };
}
