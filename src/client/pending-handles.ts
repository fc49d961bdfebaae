import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { AppliedDecision } from '../shared/approvals';
import type { AppliedBudgetDecision } from '../shared/budget';
import type { PendingItem } from './decisions';
import type { RunDecisions } from './run-decisions';
import { DecisionRefusedError } from './errors';
import { answersLater } from './query';

/**
 * Something a run waits for, with the decisions that settle it. `approve()` and `reject()` work for a tool call and
 * for a budget request (raise by the suggested amount, or stop at the limit); a question takes `answer()`. A
 * decision that does not fit the item's kind is refused with DecisionRefusedError and sends nothing.
 */
export type PendingHandle = PendingItem & {
  /** Runs the call as proposed (`always`: every later call of its tool too); raises a budget by its suggestion. */
  approve(options?: { always?: boolean; argsHash?: string }): Promise<AppliedDecision | AppliedBudgetDecision>;
  /** Does not run the call (the model sees `reason`); stops the run at a budget's limit. */
  reject(reason?: string): Promise<AppliedDecision | AppliedBudgetDecision>;
  /** Runs the call with new arguments, re-validated by the tool's schema. */
  edit(args: Record<string, unknown>): Promise<AppliedDecision>;
  /** Does not run the call; `observation` is what the model sees as its result. */
  respond(observation: string): Promise<AppliedDecision>;
  /** Answers a clarification question. */
  answer(text: string): Promise<string>;
  /** Raises a budget by `amount` (its unit: iterations, tokens or seconds). */
  raise(amount?: number): Promise<AppliedBudgetDecision>;
};

/** Between listings while nothing new waits: a person's decision is seconds away at best, so 1 s is prompt enough. */
const POLL_MS = 1_000;

function refused(item: PendingItem, what: string): Promise<never> {
  const takes =
    item.kind === 'question'
      ? 'answer'
      : item.kind === 'budget'
        ? 'approve, raise or reject'
        : 'approve, reject, edit or respond';
  return Promise.reject(
    new DecisionRefusedError(
      `${item.workflowId} ${item.callId} is a pending ${item.kind}: it takes ${takes}, not ${what}`,
      'invalid_payload',
    ),
  );
}

/** An item of a listing with the decisions that settle it, sent through its run's `decisions`. */
export function pendingHandle(decisions: RunDecisions, item: PendingItem): PendingHandle {
  const call = item.callId;
  const onCall = <T>(what: string, send: () => Promise<T>): Promise<T> =>
    item.kind === 'approval' ? send() : refused(item, what);
  return {
    ...item,
    approve: (options = {}) =>
      item.kind === 'budget'
        ? decisions.raiseBudget(undefined, call)
        : onCall('approve', () => decisions.approve(call, options)),
    reject: (reason = 'rejected') =>
      item.kind === 'budget' ? decisions.stopAtBudget(call) : onCall('reject', () => decisions.reject(call, reason)),
    edit: (args) => onCall('edit', () => decisions.edit(call, args)),
    respond: (observation) => onCall('respond', () => decisions.respond(call, observation)),
    answer: (text) => (item.kind === 'question' ? decisions.answer(text, call) : refused(item, 'answer')),
    raise: (amount) => (item.kind === 'budget' ? decisions.raiseBudget(amount, call) : refused(item, 'raise')),
  };
}

/**
 * What a run (and its running subagents) waits for, as each item appears, until the run closes. Each item is yielded
 * once; one left undecided stays pending in the run (and in `listPending`), it is not yielded again. A listing that
 * fails while the run is still running (a worker restarting cannot answer queries) is tried again at the next poll;
 * `signal` ends the iteration at once, sleeping or not.
 */
export async function* followPending(
  client: Client,
  decisionsOf: (workflowId: string) => RunDecisions,
  workflowId: string,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<PendingHandle, void, undefined> {
  const { signal } = options;
  const seen = new Set<string>();
  const workflow = client.workflow.getHandle(workflowId);
  while (!signal?.aborted) {
    let items: PendingItem[] | undefined;
    try {
      items = await decisionsOf(workflowId).listPending();
    } catch (error) {
      // Asked only when a listing fails or nothing waits: a closed run waits for nothing more (its chain's latest run
      // is the one described, so a continue-as-new is still running); a running one may just lack a worker now.
      if ((await workflow.describe()).status.name !== 'RUNNING') return;
      if (!answersLater(error)) throw error;
    }
    let fresh = 0;
    for (const item of items ?? []) {
      const key = `${item.workflowId} ${item.kind} ${item.callId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      fresh += 1;
      if (signal?.aborted) return;
      yield pendingHandle(decisionsOf(item.workflowId), item);
    }
    if (fresh > 0) continue;
    if (items && (await workflow.describe()).status.name !== 'RUNNING') return;
    try {
      await sleep(options.pollMs ?? POLL_MS, undefined, signal ? { signal } : {});
    } catch {
      return; // aborted
    }
  }
}
