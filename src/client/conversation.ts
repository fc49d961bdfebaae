import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { getEventsQuery, sendMessageUpdate } from '../shared/messages';
import type { TerminationReason } from '../shared/types';
import { updateLimitError } from './decisions';
import { MessageRefusedError } from './errors';
import { followEvents } from './events';
import { queryRun } from './query';

/** How a conversation's turn ended. */
export interface TurnAnswer {
  turn: number;
  finalAnswer: string | null;
  reason: TerminationReason;
  detail: string | null;
}

/** Sends a follow-up message; the run's validator refuses what it cannot take, leaving nothing in history. */
export async function sendMessage(handle: WorkflowHandle, text: string): Promise<{ turn: number }> {
  try {
    return await handle.executeUpdate(sendMessageUpdate, { args: [{ text }] });
  } catch (error) {
    const limit = updateLimitError(
      error,
      'send it again once the conversation has handed over to a new run, which it does between turns',
    );
    if (limit) throw new MessageRefusedError(`Message refused: ${limit.message}`);
    if (error instanceof WorkflowUpdateFailedError)
      throw new MessageRefusedError(error.cause?.message ?? error.message);
    // A closed run takes no updates at all.
    if (error instanceof WorkflowNotFoundError) {
      throw new MessageRefusedError(`Message refused: run ${handle.workflowId} has ended and takes no more messages`);
    }
    throw error;
  }
}

/**
 * Sends a message and follows the run's events until its turn ends. The cursor is read before sending, so the
 * turn's end cannot slip by between the send and the first read.
 */
export async function askInConversation(client: Client, handle: WorkflowHandle, text: string): Promise<TurnAnswer> {
  const { head } = await queryRun(handle, getEventsQuery, { after: Number.MAX_SAFE_INTEGER });
  const { turn } = await sendMessage(handle, text);
  for await (const event of followEvents(client, handle.workflowId, { after: head })) {
    if (event.type === 'turn_ended' && event.turn === turn) {
      return { turn, finalAnswer: event.finalAnswer, reason: event.reason, detail: event.detail };
    }
  }
  throw new MessageRefusedError(`the conversation ended before turn ${turn} was answered`);
}
