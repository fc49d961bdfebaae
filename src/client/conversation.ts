import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkflowNotFoundError, WorkflowUpdateFailedError, type Client, type WorkflowHandle } from '@temporalio/client';
import { getEventsQuery, sendMessageUpdate } from '../shared/messages';
import type { TerminationReason } from '../shared/termination-reasons';
import { updateLimitError } from './decisions';
import { causeMessages, MessageRefusedError } from './errors';
import { followEvents } from './events';
import { queryRun, READY_WITHIN_MS } from './query';

/** How a conversation's turn ended. */
export interface TurnAnswer {
  turn: number;
  finalAnswer: string | null;
  reason: TerminationReason;
  detail: string | null;
}

/**
 * How many times a message goes to the conversation's next run after the one it reached closed: a hand-over between
 * turns closes one run and starts the next at once, so one more try lands; three ride out a quick series.
 */
const HAND_OVER_TRIES = 3;

/**
 * Sends a follow-up message; the run's validator refuses what it cannot take, leaving nothing in history. A message
 * that reached a run while it handed over to the next (the server then reports the run gone, or the update not
 * processed) goes to the next run with the same ID, which answers the turn it was given if the closing run took it:
 * taken once, and never reported refused when it was taken.
 */
export async function sendMessage(
  handle: WorkflowHandle,
  text: string,
  id: string = randomUUID(),
  tries = HAND_OVER_TRIES,
  readyBy = Date.now() + READY_WITHIN_MS,
): Promise<{ turn: number }> {
  try {
    return await handle.executeUpdate(sendMessageUpdate, { args: [{ text, id }], updateId: id });
  } catch (error) {
    // A run that has just started takes messages once its start is prepared (a local activity): until then the SDK
    // refuses the update, recording nothing, so it is sent again.
    if (notTakingMessagesYet(error) && Date.now() < readyBy) {
      await sleep(READY_POLL_MS);
      return sendMessage(handle, text, id, tries, readyBy);
    }
    if (tries > 1 && lostInHandOver(error) && (await runningAgain(handle)))
      return sendMessage(handle, text, id, tries - 1, readyBy);
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

/** Between tries of a message the run could not take yet: a run's start is prepared in well under a second. */
const READY_POLL_MS = 100;

/** The SDK's refusal of an update that arrived before the run registered its handler. */
function notTakingMessagesYet(error: unknown): boolean {
  return error instanceof WorkflowUpdateFailedError && /No registered handler for update/.test(causeMessages(error));
}

/** The server's answers for an update whose run closed before, or while, it was taken. */
function lostInHandOver(error: unknown): boolean {
  if (error instanceof WorkflowNotFoundError) return true;
  return (
    error instanceof WorkflowUpdateFailedError &&
    /wasn't processed by worker|conversation has ended/.test(error.cause?.message ?? '')
  );
}

/** Whether the workflow ID's latest run is running (the handle names no run): the one a message reached handed over. */
async function runningAgain(handle: WorkflowHandle): Promise<boolean> {
  const description = await handle.describe().catch(() => null);
  return description?.status.name === 'RUNNING';
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
