import type { WorkflowHandle } from '@temporalio/client';
import type { AppliedBudgetDecision, BudgetDecision } from '../shared/budget';
import { decideBudgetUpdate, getPendingQuery } from '../shared/messages';
import { refused, senderFields, type Sender } from './decisions';
import { DecisionRefusedError } from './errors';

/** The budget request to decide: the given one, or the pending one (an error when none is pending). */
export async function resolveRequestId(handle: WorkflowHandle, requestId: string | undefined): Promise<string> {
  if (requestId) return requestId;
  const { budget } = await handle.query(getPendingQuery);
  if (!budget) throw new DecisionRefusedError(`Run ${handle.workflowId} has no pending budget request`, 'not_pending');
  return budget.requestId;
}

/** Sends a budget decision by update; a refused one throws DecisionRefusedError with the reason. */
export async function sendBudgetDecision(
  handle: WorkflowHandle,
  decision: BudgetDecision,
  sender?: Sender,
): Promise<AppliedBudgetDecision> {
  try {
    return await handle.executeUpdate(decideBudgetUpdate, { args: [{ ...senderFields(sender), ...decision }] });
  } catch (error) {
    throw refused(error);
  }
}
