import type { WorkflowHandle } from '@temporalio/client';
import type { AppliedBudgetDecision, BudgetDecision } from '../shared/budget';
import { decideBudgetUpdate, getPendingQuery } from '../shared/messages';
import { sendAsPerson, type Sender } from './decisions';
import { DecisionRefusedError } from './errors';
import { queryRun } from './query';

/** The budget request to decide: the given one, or the pending one (an error when none is pending). */
export async function resolveRequestId(handle: WorkflowHandle, requestId: string | undefined): Promise<string> {
  if (requestId) return requestId;
  const { budget } = await queryRun(handle, getPendingQuery);
  if (!budget) throw new DecisionRefusedError(`Run ${handle.workflowId} has no pending budget request`, 'not_pending');
  return budget.requestId;
}

/** Sends a budget decision by update; a refused one throws DecisionRefusedError with the reason. */
export function sendBudgetDecision(
  handle: WorkflowHandle,
  decision: BudgetDecision,
  sender?: Sender,
): Promise<AppliedBudgetDecision> {
  return sendAsPerson(handle, decideBudgetUpdate, decision, sender);
}
