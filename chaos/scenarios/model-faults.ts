import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AgentClient, AgentRunError } from '../../src/client';
import { ErrorType } from '../../src/shared/errors';
import { ledgerPlan, ledgerTurn, ledgerQuery } from '../ledger-script';
import { describeError, waitForResult, type RunRecord } from '../measure';
import { auditRetries, MODEL_RETRY_POLICY, withFaults, type InjectedFault } from '../model-faults';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { ledgerProblem, openKit, runRandom, settleRun, type ChaosContext, type ScenarioKit } from './kit';

/** The chaos worker's openai timeout here: short, so a hang is cut off and retried within the run. */
export const DEFAULT_MODEL_TIMEOUT_MS = 1000;
/** How long a hanging response would take: far past the client's timeout. */
const HANG_MS = 5_000;
const RUN_DEADLINE_MS = 240_000;

/** Sizes of the model-fault scenario: runs, all started at once on one worker. */
export interface ModelFaultOptions {
  runs: number;
  modelTimeoutMs?: number;
}

/** The extra 401 run: must fail at once, with the typed error and exactly one request. */
async function unauthorizedRun(kit: ScenarioKit, agents: AgentClient, failures: string[]): Promise<string> {
  const model = `chaos-401-${randomUUID()}`;
  kit.model.script(model, [
    { status: 401, errorMessage: 'Incorrect API key provided' },
    { answer: 'must never be asked' },
  ]);
  const run = await agents.start('Anything at all', { model });
  const error = await run.result().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  const requests = kit.model.requests(model).length;
  const ok =
    error instanceof AgentRunError &&
    error.type === ErrorType.ModelAuthentication &&
    error.message.includes(`OPENAI_API_KEY rejected by ${kit.model.baseURL} (HTTP 401)`) &&
    requests === 1;
  const seen = error === undefined ? 'it completed' : describeError(error);
  if (!ok)
    failures.push(
      `401 run: expected one request and a ModelAuthenticationError, got ${requests} request(s) and ${seen}`,
    );
  return ok
    ? '401 failed at once: ModelAuthenticationError after 1 request'
    : `401 misbehaved: ${requests} request(s), ${seen}`;
}

/**
 * Model faults: ledger runs against a model that answers 30% of requests with 429/5xx (some with retry-after), hangs
 * on 10% past the client timeout and sends unparseable tool-call arguments on 10%. Every run must finish with the
 * right answer, every retry must follow the policy, and a 401 must end its run at once.
 */
export async function modelFaultScenario(context: ChaosContext, options: ModelFaultOptions): Promise<ScenarioReport> {
  const timeoutMs = options.modelTimeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS;
  const kit = await openKit(context, context.address);
  const taskQueue = `chaos-faults-${randomUUID()}`;
  const failures: string[] = [];
  const notes: string[] = [];
  const injected: Record<InjectedFault['kind'], number> = { status: 0, hang: 0, malformed: 0 };
  let violations = 0;
  let endpointRetries = 0;
  let settled = 0;
  let worker: ChaosWorker | undefined;
  let records: RunRecord[];
  // The scripted model stamps requests in this process: its event-loop delay is how late a stamp can be.
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  try {
    worker = await ChaosWorker.start(kit.workerSpec(taskQueue, { modelTimeoutMs: timeoutMs }));
    const agents = new AgentClient({ client: kit.client, taskQueue });
    records = await Promise.all(
      Array.from({ length: options.runs }, async (_unused, index) => {
        const random = runRandom(context, 3, index);
        const plan = ledgerPlan(`faults-${index}-${randomUUID().slice(0, 8)}`, random);
        const model = `chaos-faults-${index}-${randomUUID()}`;
        const workflowId = `chaos-faults-${index}-${randomUUID()}`;
        const faults = new Map<number, InjectedFault>();
        kit.model.script(
          model,
          withFaults((request) => ledgerTurn(plan, request), random, faults, HANG_MS),
        );
        const startedAt = Date.now();
        const outcome = (async () => {
          await agents.start(ledgerQuery(plan), { model, limits: { maxIterations: 12 } }, { workflowId });
          const result = await waitForResult(agents, workflowId, startedAt + RUN_DEADLINE_MS);
          const audit = auditRetries(kit.model.requests(model), faults, MODEL_RETRY_POLICY, timeoutMs, lag.max / 1e6);
          violations += audit.violations.length;
          endpointRetries += audit.retries;
          return (
            ledgerProblem(kit, plan, result.finalAnswer) ??
            (audit.violations.length > 0 ? `retry policy: ${audit.violations.join('; ')}` : undefined)
          );
        })();
        const record = await settleRun(kit, workflowId, startedAt, outcome, failures);
        for (const fault of faults.values()) injected[fault.kind]++;
        if (++settled % 10 === 0 || settled === options.runs)
          context.log(`model faults: ${settled}/${options.runs} runs done`);
        return record;
      }),
    );
    notes.push(
      `injected: ${injected.status} HTTP 429/5xx, ${injected.hang} hangs past the ${timeoutMs} ms timeout, ${injected.malformed} malformed tool calls`,
      `${endpointRetries} retried model requests, ${violations} retry-policy violations`,
      await unauthorizedRun(kit, agents, failures),
    );
  } finally {
    lag.disable();
    await worker?.stop();
    await kit.close();
  }
  const duplicateEffects = kit.ledger.duplicateEffects();
  if (duplicateEffects > 0) failures.push(`${duplicateEffects} duplicate ledger effects`);
  const counts = { ...injected, endpointRetries, policyViolations: violations };
  return { scenario: 'model faults', records, duplicateEffects, notes, failures, counts };
}
