import type { Client } from '@temporalio/client';
import { AgentRunError, type AgentClient } from '../src/client';
import type { PendingDecisions } from '../src/shared/approvals';
import type { ReActResult } from '../src/shared/types';

/** What became of one run. */
export interface RunRecord {
  workflowId: string;
  durationMs: number;
  /** The run finished (any termination reason) instead of failing or hanging. */
  completed: boolean;
  /** It finished with the expected answer and, where there is one, the expected ledger balance. */
  correct: boolean;
  /** Activity attempts beyond the first, read from the run's history. */
  retries: number;
}

/** Resolves after `ms` milliseconds. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Nearest-rank percentile (p in 0–100) of `values`; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * Retries of a run's activities: Temporal records one ActivityTaskStarted per activity, carrying the attempt that
 * finished it, so attempt − 1 summed over them counts every retry (timeouts of killed attempts included).
 */
export async function activityRetries(client: Client, workflowId: string): Promise<number> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).reduce(
    (sum, event) => sum + Math.max(0, (event.activityTaskStartedEventAttributes?.attempt ?? 1) - 1),
    0,
  );
}

/**
 * Waits for a run's result, riding out a server that is down or restarting: transport errors are retried until
 * `deadline` (epoch ms); a failed run still throws its AgentRunError at once.
 */
export async function waitForResult(agents: AgentClient, workflowId: string, deadline: number): Promise<ReActResult> {
  for (;;) {
    try {
      return await agents.handle(workflowId).result();
    } catch (error) {
      if (error instanceof AgentRunError || Date.now() > deadline) throw error;
      await sleep(500);
    }
  }
}

/** Races `promise` against a timer; rejects with `what` in the message when the timer wins. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${Math.round(ms / 1000)} s`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls until the run waits for at least one approval; returns what it waits for. */
export async function waitForApproval(
  agents: AgentClient,
  workflowId: string,
  timeoutMs: number,
): Promise<PendingDecisions> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const pending = await agents
      .handle(workflowId)
      .getPending()
      .catch(() => undefined);
    if (pending && pending.approvals.length > 0) return pending;
    await sleep(100);
  }
  throw new Error(`run ${workflowId} never waited for an approval`);
}

/** A one-shot trigger: `fire(afterMs)` resolves `fired` after the delay; later calls are ignored. */
export function trigger(): { fire(afterMs: number): void; fired: Promise<void> } {
  let resolve: () => void = () => undefined;
  const fired = new Promise<void>((done) => (resolve = done));
  let armed = true;
  return {
    fired,
    fire(afterMs) {
      if (!armed) return;
      armed = false;
      setTimeout(resolve, afterMs);
    },
  };
}

/** A failure message from anything thrown. */
export const describeError = (error: unknown): string =>
  error instanceof AgentRunError
    ? `${error.type ?? 'AgentRunError'}: ${error.message}`
    : error instanceof Error
      ? error.message
      : String(error);
