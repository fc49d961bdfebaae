import type { Client } from '@temporalio/client';
import type { AppliedDecision, Decision, PendingDecisions } from '../shared/approvals';
import type { AppliedBudgetDecision } from '../shared/budget';
import { getPendingQuery } from '../shared/messages';
import { resolveRequestId, sendBudgetDecision } from './budget';
import {
  listPending,
  listPendingInRun,
  resolveCallId,
  sendAnswer,
  sendDecision,
  type ListPendingOptions,
  type PendingItem,
  type Sender,
} from './decisions';
import { queryRun } from './query';

/** A decision without its call ID (filled in by resolveCallId). */
export type DecisionBody = Decision extends infer D ? (D extends Decision ? Omit<D, 'callId'> : never) : never;

/** The human side of AgentClient: what waits for a person, and the decisions that settle it, sent as `sender`. */
export abstract class AgentDecisions {
  protected constructor(
    /** The underlying Temporal client, for anything this API does not cover. */
    readonly client: Client,
    /** Who this client's decisions and answers say they come from (recorded in the run's history and trace). */
    readonly sender: Sender,
  ) {}

  /** Every pending approval and question across running agents (a run that does not answer in time is left out). */
  listPending(options: ListPendingOptions = {}): Promise<PendingItem[]> {
    return listPending(this.client, options);
  }

  /** What a run and its running subagents wait for, each item naming the run to send its decision to. */
  getPendingInRun(workflowId: string): Promise<PendingItem[]> {
    return listPendingInRun(this.client, workflowId);
  }

  /** What one run is waiting for. */
  getPending(workflowId: string): Promise<PendingDecisions> {
    return queryRun(this.client.workflow.getHandle(workflowId), getPendingQuery);
  }

  /** Sends any decision; `callId` may be left out when exactly one call is pending. */
  async decide(workflowId: string, callId: string | undefined, decision: DecisionBody): Promise<AppliedDecision> {
    const handle = this.client.workflow.getHandle(workflowId);
    return sendDecision(handle, { ...decision, callId: await resolveCallId(handle, callId) }, this.sender);
  }

  /** Runs the call as proposed; `always` also approves every later call of the same tool in this run. */
  approve(
    workflowId: string,
    callId?: string,
    options: { always?: boolean; argsHash?: string } = {},
  ): Promise<AppliedDecision> {
    return this.decide(workflowId, callId, { decision: 'approve', ...options });
  }

  /** Does not run the call; the model sees the reason. */
  reject(workflowId: string, callId: string | undefined, reason: string): Promise<AppliedDecision> {
    return this.decide(workflowId, callId, { decision: 'reject', reason });
  }

  /** Runs the call with new arguments, re-validated by the tool's schema (refused, call still pending, if invalid). */
  edit(workflowId: string, callId: string | undefined, args: Record<string, unknown>): Promise<AppliedDecision> {
    return this.decide(workflowId, callId, { decision: 'edit', args });
  }

  /** Does not run the call; `observation` is what the model sees as its result. */
  respond(workflowId: string, callId: string | undefined, observation: string): Promise<AppliedDecision> {
    return this.decide(workflowId, callId, { decision: 'respond', observation });
  }

  /** Answers the run's clarification question. */
  answer(workflowId: string, text: string, callId?: string): Promise<string> {
    return sendAnswer(this.client.workflow.getHandle(workflowId), text, callId, this.sender);
  }

  /**
   * Raises the limit a run asks about (`limits.onReached: 'ask'`) by `amount` (in its unit: iterations, tokens or seconds;
   * default: the request's suggestion); `requestId` may be left out, it defaults to the pending request.
   */
  async raiseBudget(workflowId: string, amount?: number, requestId?: string): Promise<AppliedBudgetDecision> {
    const handle = this.client.workflow.getHandle(workflowId);
    const id = await resolveRequestId(handle, requestId);
    return sendBudgetDecision(handle, { requestId: id, decision: 'raise', ...(amount ? { amount } : {}) }, this.sender);
  }

  /** Stops the run at the limit it asks about, with that limit's termination reason. */
  async stopAtBudget(workflowId: string, requestId?: string): Promise<AppliedBudgetDecision> {
    const handle = this.client.workflow.getHandle(workflowId);
    const id = await resolveRequestId(handle, requestId);
    return sendBudgetDecision(handle, { requestId: id, decision: 'stop' }, this.sender);
  }
}
