import type { Client, WorkflowHandle } from '@temporalio/client';
import { getPendingQuery } from '../shared/messages';
import type { PendingDecisions } from '../shared/approvals';
import { queryRun } from '../client/query';
import type { RecordedDecision } from './recording-types';

/** A decision, answer or budget decision as the recording holds it. */
export type RecordedDecisionLike = Pick<RecordedDecision, 'message' | 'payload'>;

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

  /** Sends the recorded payload for `id` (or `fallback`, reported, when the recording has none left). */
  const send = async (
    message: RecordedDecisionLike['message'],
    key: 'callId' | 'requestId',
    id: string,
    fallback: Record<string, unknown>,
    missing: string,
  ): Promise<void> => {
    if (settled.has(id) || timedOut.has(id)) return;
    const payload = take(message, key, id);
    if (!payload) {
      unrecorded.push(missing);
      settled.add(id);
    }
    await handle.executeUpdate<unknown, [Record<string, unknown>]>(message, {
      args: [{ ...(payload ?? fallback), [key]: id }],
    });
    // Settled once the run accepts it: a decision it refused in the recording (an invalid edit) left the call
    // pending there too, and the next recorded decision for it is sent on the next poll.
    settled.add(id);
  };

  const settle = async (pending: PendingDecisions): Promise<void> => {
    for (const call of pending.approvals) {
      const fallback = { decision: 'reject', reason: 'replay-check: the recording has no decision for this call' };
      await send('decide', 'callId', call.callId, fallback, `decision on ${call.callId}: ${call.tool}`);
    }
    const { question, budget } = pending;
    if (question) {
      const fallback = { answer: 'replay-check: the recording has no answer to this question' };
      await send('answer', 'callId', question.callId, fallback, `answer to ${question.callId}: ${question.question}`);
    }
    if (budget)
      await send(
        'decideBudget',
        'requestId',
        budget.requestId,
        { decision: 'stop' },
        `budget request ${budget.requestId}`,
      );
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
