import { randomUUID } from 'node:crypto';
import { AgentClient } from '../../src/client/agent-client';
import type { ScriptedResponder } from '../../src/testing/scripted-model';
import { toolResults } from '../ledger-script';
import { waitForResult, type RunRecord } from '../measure';
import type { ScenarioReport } from '../report';
import { ChaosWorker } from '../worker-process';
import { openKit, settleRun, type ChaosContext } from './kit';

const RUN_DEADLINE_MS = 600_000;

/** Sizes of the load scenario: `runs` runs of `steps` tool steps each, all at once on one worker process. */
export interface LoadOptions {
  runs: number;
  steps: number;
}

/** A run that adds one with the calculator `steps` times, then answers with the total. */
function counter(steps: number): ScriptedResponder {
  return (request) => {
    const done = toolResults(request).length;
    if (done >= steps) return { answer: `Counted to ${steps}.` };
    return {
      thought: `Step ${done + 1} of ${steps}: the running total needs one more exact addition.`,
      toolCalls: [{ name: 'calculator', args: { expression: `${done} + 1` } }],
    };
  };
}

const megabytes = (bytes: number | undefined): string =>
  bytes === undefined ? 'unknown' : `${Math.round(bytes / 1024 / 1024)} MB`;

/** Load: many concurrent runs of several steps on one fresh worker process; all must finish with the right count. */
export async function loadScenario(context: ChaosContext, options: LoadOptions): Promise<ScenarioReport> {
  const kit = await openKit(context, context.address);
  const taskQueue = `chaos-load-${randomUUID()}`;
  const failures: string[] = [];
  let worker: ChaosWorker | undefined;
  let records: RunRecord[];
  let wallMs: number;
  let peak: number | undefined;
  try {
    worker = await ChaosWorker.start(kit.workerSpec(taskQueue));
    const agents = new AgentClient({ client: kit.client, taskQueue });
    const startedAt = Date.now();
    records = await Promise.all(
      Array.from({ length: options.runs }, async (_unused, index) => {
        const model = `chaos-load-${index}-${randomUUID()}`;
        const workflowId = `chaos-load-${index}-${randomUUID()}`;
        kit.model.script(model, counter(options.steps));
        const runStartedAt = Date.now();
        const outcome = (async () => {
          await agents.start(
            `Count to ${options.steps}`,
            { model, limits: { maxIterations: options.steps + 2 } },
            { workflowId },
          );
          const result = await waitForResult(agents, workflowId, runStartedAt + RUN_DEADLINE_MS);
          const toolSteps = result.trace.steps.filter((step) => step.action.type === 'tool_call').length;
          if (result.finalAnswer !== `Counted to ${options.steps}.`) return `answer "${result.finalAnswer}"`;
          return toolSteps === options.steps ? undefined : `${toolSteps} tool steps, expected ${options.steps}`;
        })();
        return settleRun(kit, workflowId, runStartedAt, outcome, failures);
      }),
    );
    wallMs = Date.now() - startedAt;
    peak = worker.peakRssBytes();
  } finally {
    await worker?.stop();
    await kit.close();
  }
  const steps = options.runs * options.steps;
  const stepsPerSecond = steps / (wallMs / 1000);
  const notes = [
    `${steps} steps in ${(wallMs / 1000).toFixed(1)} s: ${stepsPerSecond.toFixed(1)} steps/s`,
    `worker peak RSS ${megabytes(peak)}`,
  ];
  // Peak RSS is the worker process's VmHWM, read just before it stops; absent where /proc is not available.
  const counts = { steps, stepsPerSecond, ...(peak === undefined ? {} : { workerPeakRssBytes: peak }) };
  return { scenario: 'load', records, duplicateEffects: undefined, notes, failures, counts };
}
