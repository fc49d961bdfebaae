import type { Client, WorkflowHandle } from '@temporalio/client';
import { answerUpdate, decideBudgetUpdate, decideUpdate, getPendingQuery } from '../shared/messages';
import type { Answer, Decision, PendingDecisions } from '../shared/approvals';
import type { BudgetDecision } from '../shared/budget';
import { queryRun } from '../client/query';

/** A decision, answer or budget decision as the recording holds it. */
export interface RecordedDecisionLike {
  message: 'decide' | 'answer' | 'decideBudget';
  payload: Record<string, unknown>;
}

/** What the scripted reviewer could not settle from the recording. */
export interface Reviewer {
  /** Calls and questions the recording had no decision for (they were refused, so the run could go on). */
  readonly unrecorded: string[];
  stop(): Promise<void>;
}

const POLL_MS = 100;

/**
 * Plays a recording's people: while the replay runs, every call or question it waits for gets the decision the
 * recorded one got (same call ID, same payload and identity), sent as an update like the original. A call whose
 * recorded counterpart timed out is left to time out; one the recording never saw is rejected, and reported.
 */
export function startReviewer(
  client: Client,
  workflowId: string,
  recorded: readonly RecordedDecisionLike[],
  timedOut: ReadonlySet<string>,
): Reviewer {
  const handle: WorkflowHandle = client.workflow.getHandle(workflowId);
  const left = [...recorded];
  const settled = new Set<string>();
  const unrecorded: string[] = [];
  let stopped = false;

  const take = (message: RecordedDecisionLike['message'], key: string, id: string): Record<string, unknown> | null => {
    const index = left.findIndex((entry) => entry.message === message && entry.payload[key] === id);
    // A recording whose ids no longer line up still answers in order (e.g. the only question of a run).
    const fallback = index >= 0 ? index : left.findIndex((entry) => entry.message === message);
    return fallback >= 0 ? left.splice(fallback, 1)[0]!.payload : null;
  };

  const settle = async (pending: PendingDecisions): Promise<void> => {
    for (const call of pending.approvals) {
      if (settled.has(call.callId) || timedOut.has(call.callId)) continue;
      settled.add(call.callId);
      const payload = take('decide', 'callId', call.callId);
      const decision = (payload ?? {
        decision: 'reject',
        reason: 'replay-check: the recording has no decision for this call',
      }) as Decision;
      if (!payload) unrecorded.push(`decision on ${call.callId}: ${call.tool}`);
      await handle.executeUpdate(decideUpdate, { args: [{ ...decision, callId: call.callId }] });
    }
    const question = pending.question;
    if (question && !settled.has(question.callId) && !timedOut.has(question.callId)) {
      settled.add(question.callId);
      const payload = take('answer', 'callId', question.callId);
      if (!payload) unrecorded.push(`answer to ${question.callId}: ${question.question}`);
      const answer = (payload ?? { answer: 'replay-check: the recording has no answer to this question' }) as Answer;
      await handle.executeUpdate(answerUpdate, { args: [{ ...answer, callId: question.callId }] });
    }
    const budget = pending.budget;
    if (budget && !settled.has(budget.requestId)) {
      settled.add(budget.requestId);
      const payload = take('decideBudget', 'requestId', budget.requestId);
      if (!payload) unrecorded.push(`budget request ${budget.requestId}`);
      const decision = (payload ?? { decision: 'stop' }) as BudgetDecision;
      await handle.executeUpdate(decideBudgetUpdate, { args: [{ ...decision, requestId: budget.requestId }] });
    }
  };

  const loop = (async () => {
    while (!stopped) {
      const pending = await queryRun(handle, getPendingQuery).catch(() => null);
      // A decision the run refuses (e.g. it moved on) is the behaviour replay-check reports, not the reviewer's error.
      if (pending) await settle(pending).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  })();

  return {
    unrecorded,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
