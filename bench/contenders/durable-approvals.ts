/**
 * P4 and P5: what waiting for people costs. P4 times a decision from the moment the client sends it to the moment the
 * approved tool starts (the tool reports its own start time in its result). P5 parks thousands of runs on approval
 * with the worker's workflow cache bounded, reads the worker's memory, then approves them all and checks every one
 * completes.
 */
import { now } from '../child';
import { benchModel, percentile, pool } from '../scenario';
import { succeeded, type DurableStack } from './durable-stack';

export interface ApprovalJob {
  baseURL: string;
  maxCachedWorkflows: number;
  /** P4: decisions timed one after another. */
  decisions: number;
  /** P5: runs parked at once. */
  parked: number;
}

export interface ApprovalResult {
  latency: { decisions: number; p50Ms: number; p99Ms: number; meanMs: number };
  parked: {
    runs: number;
    maxCachedWorkflows: number;
    parkSeconds: number;
    resumeSeconds: number;
    completed: number;
    /** RSS before parking: after P4, whose 200 finished runs are still cached. */
    workerRssIdleMiB: number;
    workerRssParkedMiB: number;
    workerPeakMiB: number;
    /** NODE_OPTIONS the worker ran with, when the bench set any. */
    workerNodeOptions?: string;
  };
}

const TASK = 'Call the guarded tool once, then answer.';

async function startParked(stack: DurableStack, ids: string[], tag: string): Promise<void> {
  await pool(ids.length, 50, async (i) => {
    await stack.agents.start(
      TASK,
      { model: benchModel('guarded', 1, `${tag}-${i}`), limits: { maxIterations: 2 } },
      { workflowId: ids[i] ?? '' },
    );
  });
}

async function pendingCallId(stack: DurableStack, workflowId: string): Promise<string> {
  for (;;) {
    const [call] = (await stack.agents.handle(workflowId).getPending()).approvals;
    if (call) return call.callId;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function measureApprovalLatency(
  stack: DurableStack,
  job: ApprovalJob,
): Promise<Pick<ApprovalResult, 'latency'>> {
  const ids = Array.from({ length: job.decisions }, (_, i) => `p4-${i}`);
  await startParked(stack, ids, 'p4');
  // Time decisions on a quiet system: every run waiting, none still on its first model call.
  await waitForParked(stack, ids.length);
  const sentAt = new Map<string, number>();
  for (const id of ids) {
    const callId = await pendingCallId(stack, id);
    // Wall-clock time, comparable with the tool's Date.now() in the worker process on the same machine.
    sentAt.set(id, Date.now());
    await stack.agents.handle(id).approve(callId);
  }
  const latencies: number[] = [];
  for (const id of ids) {
    const result = await succeeded(stack, id);
    const startedAt = (
      result.trace.steps.find((step) => step.decision?.kind === 'approve')?.observationData as { startedAt?: number }
    )?.startedAt;
    if (typeof startedAt !== 'number') throw new Error(`${id}: the approved tool did not report its start`);
    latencies.push(startedAt - (sentAt.get(id) ?? NaN));
  }
  const meanMs = latencies.reduce((sum, value) => sum + value, 0) / latencies.length;
  console.error(`approval latency: ${latencies.length} decisions measured`);
  return {
    latency: {
      decisions: latencies.length,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      meanMs,
    },
  };
}

async function waitForParked(stack: DurableStack, count: number): Promise<void> {
  for (;;) {
    const { count: parked } = await stack.client.workflow.count('AgentStatus = "AwaitingApproval"');
    if (parked >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/**
 * Logs the worker's RSS once a minute while P5 parks and resumes: a 100,000-run pass takes over an hour, and the
 * slope tells early whether memory levels off at the cache bound or grows with parked runs.
 */
function logMemoryEveryMinute(stack: DurableStack, phase: string, startedAt: number): () => void {
  const timer = setInterval(() => {
    void stack
      .workerMemory()
      .then(({ rssMiB }) =>
        console.error(`${phase}: ${((now() - startedAt) / 1000).toFixed(0)} s, worker RSS ${rssMiB.toFixed(0)} MiB`),
      );
  }, 60_000);
  return () => clearInterval(timer);
}

export async function measureParkedRuns(
  stack: DurableStack,
  job: ApprovalJob,
): Promise<Pick<ApprovalResult, 'parked'>> {
  // Read after P4 in the same worker: the baseline includes P4's 200 finished runs, still cached.
  const before = await stack.workerMemory();
  const ids = Array.from({ length: job.parked }, (_, i) => `p5-${i}`);
  let started = now();
  let stopLogging = logMemoryEveryMinute(stack, 'parking', started);
  await startParked(stack, ids, 'p5');
  await waitForParked(stack, ids.length);
  stopLogging();
  const parkSeconds = (now() - started) / 1000;
  const parked = await stack.workerMemory();
  console.error(
    `parked: ${ids.length} runs awaiting approval after ${parkSeconds.toFixed(0)} s, worker RSS ${parked.rssMiB.toFixed(0)} MiB`,
  );
  started = now();
  stopLogging = logMemoryEveryMinute(stack, 'resuming', started);
  let completed = 0;
  await pool(ids.length, 50, async (i) => {
    const id = ids[i] ?? '';
    await stack.agents.handle(id).approve();
    await succeeded(stack, id);
    completed += 1;
  });
  stopLogging();
  const resumeSeconds = (now() - started) / 1000;
  console.error(`resumed: ${completed} runs completed in ${resumeSeconds.toFixed(0)} s`);
  return {
    parked: {
      runs: ids.length,
      maxCachedWorkflows: job.maxCachedWorkflows,
      parkSeconds,
      resumeSeconds,
      completed,
      workerRssIdleMiB: before.rssMiB,
      workerRssParkedMiB: parked.rssMiB,
      // VmHWM: the process's lifetime high-water mark, P4 included.
      workerPeakMiB: (await stack.workerMemory()).peakMiB,
    },
  };
}
