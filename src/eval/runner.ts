import type { AgentClient } from '../client/agent-client';
import { AgentRunError } from '../client/errors';
import type { ReActResult } from '../shared/types';
import { heuristicVerdict, judgeSteps, type JudgeOptions } from './coherence';
import type { RunRecord } from './criteria';
import type { EvalTask } from './suite';
import { errorMessage } from '../shared/errors';

/** How a suite runs. */
export interface RunSuiteOptions {
  agents: AgentClient;
  tasks: readonly EvalTask[];
  /** The model each task's runs use (the endpoint is the worker's). */
  modelFor: (task: EvalTask) => string | undefined;
  /** Runs per task (default 1): more runs, narrower intervals. */
  repeat?: number;
  concurrency?: number;
  judge?: JudgeOptions;
  /** Called after each run with how many are done. */
  onProgress?: (done: number, total: number, record: RunRecord) => void;
}

const POLL_MS = 200;

/** Plays the task's reviewer: every call that waits for a person gets the task's decision (approve by default). */
async function review(agents: AgentClient, workflowId: string, task: EvalTask, done: () => boolean): Promise<void> {
  const decided = new Set<string>();
  while (!done()) {
    const pending = await agents
      .handle(workflowId)
      .getPending()
      .catch(() => null);
    for (const call of pending?.approvals ?? []) {
      if (decided.has(call.callId)) continue;
      decided.add(call.callId);
      const decision = task.review ?? { decision: 'approve' as const };
      const body =
        decision.decision === 'reject'
          ? { decision: 'reject' as const, reason: decision.reason ?? 'not approved' }
          : decision.decision === 'respond'
            ? { decision: 'respond' as const, observation: decision.observation ?? '' }
            : { decision: 'approve' as const };
      await agents
        .handle(workflowId)
        .decide(call.callId, body)
        .catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function runOne(options: RunSuiteOptions, task: EvalTask): Promise<RunRecord> {
  const model = options.modelFor(task);
  const handle = await options.agents.start(task.query, { ...task.config, ...(model ? { model } : {}) });
  let finished = false;
  const reviewing = review(options.agents, handle.workflowId, task, () => finished);
  let result: ReActResult | null = null;
  let error: string | undefined;
  try {
    result = await handle.result();
  } catch (failure) {
    error = errorMessage(failure);
    if (!(failure instanceof AgentRunError)) throw failure;
  } finally {
    finished = true;
    await reviewing;
  }
  const steps = result?.trace.steps ?? [];
  const verdicts = options.judge ? await judgeSteps(options.judge, task.query, steps) : steps.map(heuristicVerdict);
  return { task, workflowId: handle.workflowId, result, ...(error ? { error } : {}), verdicts };
}

/** Runs every task (`repeat` times) as durable runs, `concurrency` at a time, and judges each run's steps. */
export async function runSuite(options: RunSuiteOptions): Promise<RunRecord[]> {
  const queue = options.tasks.flatMap((task) => Array.from({ length: options.repeat ?? 1 }, () => task));
  const records: RunRecord[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < queue.length) {
      const task = queue[next++]!;
      const record = await runOne(options, task);
      records.push(record);
      options.onProgress?.(records.length, queue.length, record);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  // Suite order, whatever order the runs finished in.
  return records.sort((a, b) => queue.indexOf(a.task) - queue.indexOf(b.task));
}
