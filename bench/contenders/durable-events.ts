/** P7: how fast a subscriber sees a run's events, and what streaming a run adds to its history. */
import { temporal } from '@temporalio/proto';
import { chainRunIds } from '../../src/client/run-chain';
import { now } from '../child';
import { BENCH_TASK, benchModel, percentile } from '../scenario';
import { succeeded, type DurableStack } from './durable-stack';

export interface EventsJob {
  baseURL: string;
  /** Live events to time (about four per step: thought, requested, started, finished). */
  events: number;
  /** Steps of the runs whose histories are compared. */
  historySteps: number;
}

export interface EventsResult {
  latency: { events: number; p50Ms: number; p99Ms: number; meanMs: number };
  history: { steps: number; quietBytes: number; streamedBytes: number; addedBytes: number; addedPerStep: number };
}

async function historyBytes(stack: DurableStack, workflowId: string): Promise<number> {
  let bytes = 0;
  for (const runId of await chainRunIds(stack.client, workflowId)) {
    const history = await stack.client.workflow.getHandle(workflowId, runId).fetchHistory();
    bytes += temporal.api.history.v1.History.encode(history).finish().byteLength;
  }
  return bytes;
}

/**
 * Latency: one run followed live from its start; each event's delay is the time it arrived here minus its `at`
 * (the workflow time of the task that recorded it: same machine, same clock). History: the same 20-step script
 * run quietly, and run with `modelSettings.stream` and a live subscriber.
 */
export async function measureEvents(stack: DurableStack, job: EventsJob): Promise<EventsResult> {
  const steps = Math.ceil(job.events / 4);
  const run = await stack.agents.start(BENCH_TASK, {
    model: benchModel('noop', steps, 'p7-live'),
    limits: { maxIterations: steps + 1 },
  });
  const delays: number[] = [];
  for await (const event of run.events()) {
    if (event.type !== 'gap' && event.type !== 'run_started') delays.push(Date.now() - Date.parse(event.at));
  }
  await succeeded(stack, run.workflowId);
  const timed = delays.slice(0, job.events);

  const quiet = await stack.agents.start(BENCH_TASK, {
    model: benchModel('noop', job.historySteps, 'p7-quiet'),
    limits: { maxIterations: job.historySteps + 1 },
  });
  await succeeded(stack, quiet.workflowId);
  const streamed = await stack.agents.start(BENCH_TASK, {
    model: benchModel('noop', job.historySteps, 'p7-streamed'),
    limits: { maxIterations: job.historySteps + 1 },
    modelSettings: { stream: true },
  });
  const started = now();
  let seen = 0;
  for await (const event of streamed.events()) seen += event.type === 'gap' ? 0 : 1;
  await succeeded(stack, streamed.workflowId);
  console.error(`events: ${seen} events of the streamed run in ${((now() - started) / 1000).toFixed(1)} s`);
  const quietBytes = await historyBytes(stack, quiet.workflowId);
  const streamedBytes = await historyBytes(stack, streamed.workflowId);
  return {
    latency: {
      events: timed.length,
      p50Ms: percentile(timed, 50),
      p99Ms: percentile(timed, 99),
      meanMs: timed.reduce((sum, delay) => sum + delay, 0) / timed.length,
    },
    history: {
      steps: job.historySteps,
      quietBytes,
      streamedBytes,
      addedBytes: streamedBytes - quietBytes,
      addedPerStep: (streamedBytes - quietBytes) / job.historySteps,
    },
  };
}
