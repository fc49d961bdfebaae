import type { Client } from '@temporalio/client';
import type { AppliedDecision, Decision, PendingDecisions } from '../shared/approvals';
import type { AppliedBudgetDecision } from '../shared/budget';
import { getPendingQuery } from '../shared/messages';
import {
  listPendingInRun,
  resolveCallId,
  resolveRequestId,
  sendAnswer,
  sendBudgetDecision,
  sendDecision,
  type PendingItem,
  type Sender,
} from './decisions';
import { queryRun } from './query';

/** A decision without its call ID (filled in by resolveCallId). */
export type DecisionBody = Decision extends infer D ? (D extends Decision ? Omit<D, 'callId'> : never) : never;

/**
 * What a run waits for from a person, and the decisions that settle it, sent as the client's sender (recorded in the
 * run's history and trace). A `callId` or `requestId` may be left out when exactly one is pending.
 */
export interface RunDecisions {
  /** What this run is waiting for. */
  getPending(): Promise<PendingDecisions>;
  /** What this run and its running subagents wait for, each item naming the run to send its decision to. */
  listPending(): Promise<PendingItem[]>;
  /** Sends any decision. */
  decide(callId: string | undefined, decision: DecisionBody): Promise<AppliedDecision>;
  /** Runs the call as proposed; `always` also approves every later call of the same tool in this run. */
  approve(callId?: string, options?: { always?: boolean; argsHash?: string }): Promise<AppliedDecision>;
  /** Does not run the call; the model sees the reason. */
  reject(callId: string | undefined, reason: string): Promise<AppliedDecision>;
  /** Runs the call with new arguments, re-validated by the tool's schema (refused, call still pending, if invalid). */
  edit(callId: string | undefined, args: Record<string, unknown>): Promise<AppliedDecision>;
  /** Does not run the call; `observation` is what the model sees as its result. */
  respond(callId: string | undefined, observation: string): Promise<AppliedDecision>;
  /** Answers the run's clarification question; resolves with the question answered. */
  answer(text: string, callId?: string): Promise<string>;
  /**
   * Raises the limit the run asks about (`limits.onReached: 'ask'`) by `amount` (in its unit: iterations, tokens or
   * seconds; default: the request's suggestion).
   */
  raiseBudget(amount?: number, requestId?: string): Promise<AppliedBudgetDecision>;
  /** Stops the run at the limit it asks about, with that limit's termination reason. */
  stopAtBudget(requestId?: string): Promise<AppliedBudgetDecision>;
}

/** The decisions of one run, sent through `client` as `sender`. */
export function runDecisions(client: Client, sender: Sender, workflowId: string): RunDecisions {
  const handle = client.workflow.getHandle(workflowId);
  const decide = async (callId: string | undefined, decision: DecisionBody): Promise<AppliedDecision> =>
    sendDecision(handle, { ...decision, callId: await resolveCallId(handle, callId) }, sender);
  return {
    getPending: () => queryRun(handle, getPendingQuery),
    listPending: () => listPendingInRun(client, workflowId),
    decide,
    approve: (callId, options = {}) => decide(callId, { decision: 'approve', ...options }),
    reject: (callId, reason) => decide(callId, { decision: 'reject', reason }),
    edit: (callId, args) => decide(callId, { decision: 'edit', args }),
    respond: (callId, observation) => decide(callId, { decision: 'respond', observation }),
    answer: (text, callId) => sendAnswer(handle, text, callId, sender),
    raiseBudget: async (amount, requestId) => {
      const id = await resolveRequestId(handle, requestId);
      return sendBudgetDecision(handle, { requestId: id, decision: 'raise', ...(amount ? { amount } : {}) }, sender);
    },
    stopAtBudget: async (requestId) => {
      const id = await resolveRequestId(handle, requestId);
      return sendBudgetDecision(handle, { requestId: id, decision: 'stop' }, sender);
    },
  };
}
