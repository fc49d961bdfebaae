import { condition, isCancellation, setHandler, workflowInfo } from '@temporalio/workflow';
import { continueAsNewNow, shouldContinueAsNew } from './continue-as-new';
import { parseDuration } from '../shared/duration';
import { eventText } from '../shared/events';
import { headOf } from '../shared/well-formed';
import { sendMessageUpdate, type FollowUpMessage } from '../shared/messages';
import type { ConversationState, TurnRecord } from '../shared/types';
import { publishStatus } from './record/agent-status';
import type { RunState } from './record/run-state';
import { enterPhase } from './record/run-activity';
import { clearOutcome, resumeOutcome } from './record/outcome';
import { clearCallSignatures } from './record/run-counters';
import { clearGuidance } from './record/prompt-state';
import { clearWindow } from './record/transcript';

/** Longest follow-up message accepted: it becomes a prompt and is carried across continue-as-new. */
export const MAX_MESSAGE_CHARS = 100_000;
/**
 * Messages waiting for their turn, at most: the queue is carried whole across continue-as-new, whose input Temporal
 * caps (about 2 MB), so it must stay well inside that with the rest of the carried state.
 */
export const MAX_QUEUED_MESSAGES = 20;
/** Characters of all waiting messages together, at most (see {@link MAX_QUEUED_MESSAGES}). */
export const MAX_QUEUED_CHARS = 200_000;
/**
 * Characters of the last turn's answer (and of its output as JSON) a waiting conversation carries into the next run:
 * with a full message queue (MAX_QUEUED_CHARS) the hand-over's input stays under Temporal's 2 MB.
 */
const AWAITING_MAX_CHARS = 50_000;
/** Earlier turns the model sees as user/assistant messages before the current one. */
const HISTORY_TURNS = 10;
/** Earlier turns' texts are cut to this many characters in the prompt; the trace keeps them as previews too. */
const HISTORY_CHARS = 4000;
/** Turn records a run keeps (and carries): the newest; each is a few previews. */
const TURNS_KEPT = 200;
/**
 * Sender IDs of messages a run remembers (and carries): a sender tries a message again within seconds of a
 * hand-over, by which time fewer than this many others can have been taken (the queue holds 20).
 */
const TAKEN_IDS_KEPT = 100;

/**
 * Makes the run a conversation when it is configured with `conversation.idleTimeout`: the one carried from the
 * previous run, or a fresh one; a one-shot run has none.
 */
export function startConversation(state: RunState, carried: ConversationState | undefined): void {
  state.conversation = openConversation(state, carried);
}

function openConversation(state: RunState, carried: ConversationState | undefined): ConversationState | null {
  if (state.config.conversation.idleTimeout === undefined) return null;
  if (carried) return carried;
  state.events.emit({ type: 'turn_started', turn: 1, message: eventText(state.query) });
  return {
    turn: 1,
    assigned: 1,
    inbox: [],
    history: [],
    turns: [],
    iterationsAtTurnStart: 0,
    tokensAtTurnStart: 0,
    turnStartedAtMs: state.startedAtMs,
  };
}

function refusal(state: RunState, text: unknown): string | null {
  if (!state.conversation) {
    return 'this run takes no follow-up messages: start it with conversation.idleTimeout to make it a conversation';
  }
  if (state.events.ended || state.activity.phase === 'completed') return 'the conversation has ended';
  if (typeof text !== 'string' || text.trim() === '') return 'a message must be a non-empty string';
  if (text.length > MAX_MESSAGE_CHARS) return `a message may have at most ${MAX_MESSAGE_CHARS} characters`;
  const { inbox } = state.conversation;
  const queued = inbox.reduce((sum, message) => sum + message.length, 0);
  if (inbox.length >= MAX_QUEUED_MESSAGES || queued + text.length > MAX_QUEUED_CHARS) {
    return (
      `${inbox.length} messages (${queued} characters) are already waiting for their turn; at most ` +
      `${MAX_QUEUED_MESSAGES} and ${MAX_QUEUED_CHARS} characters may wait: send again once a turn has started`
    );
  }
  return null;
}

/** The `sendMessage` update: a follow-up message is queued for the next turn, and its turn number returned. */
export function installConversationHandlers(state: RunState): void {
  setHandler(
    sendMessageUpdate,
    ({ text, id }) => {
      const conversation = state.conversation!; // the validator refused the message otherwise
      const turn = takenTurn(conversation, id);
      if (turn !== undefined) return { turn };
      conversation.inbox.push(text);
      conversation.assigned += 1;
      if (typeof id === 'string') {
        const taken = (conversation.taken ??= []);
        taken.push([id, conversation.assigned]);
        taken.splice(0, taken.length - TAKEN_IDS_KEPT);
      }
      return { turn: conversation.assigned };
    },
    {
      validator: (input) => {
        const message = input as Partial<FollowUpMessage> | null;
        // A message taken before (sent again after a hand-over) is answered with its turn, whatever the queue holds.
        if (state.conversation && takenTurn(state.conversation, message?.id) !== undefined) return;
        const problem = refusal(state, message?.text);
        if (problem !== null) throw new Error(`Message refused: ${problem}`);
      },
    },
  );
}

/** The turn a message with this sender ID was given, if this conversation took it already. */
function takenTurn(conversation: ConversationState, id: unknown): number | undefined {
  if (typeof id !== 'string') return undefined;
  return conversation.taken?.find(([taken]) => taken === id)?.[1];
}

/** Records how the current turn ended: in the trace's turns, in the model's view of earlier turns, as an event. */
function endTurn(state: RunState, conversation: ConversationState): void {
  const reason = state.outcome.stop?.reason ?? 'failure';
  const record: TurnRecord = {
    turn: conversation.turn,
    message: eventText(state.query),
    finalAnswer: state.outcome.finalAnswer === null ? null : eventText(state.outcome.finalAnswer),
    terminationReason: reason,
    terminationDetail: state.outcome.stop?.detail ?? null,
    iterations: state.counters.iterations - conversation.iterationsAtTurnStart,
    tokens: state.counters.usage.totalTokens - conversation.tokensAtTurnStart,
  };
  conversation.turns.push(record);
  conversation.turns.splice(0, conversation.turns.length - TURNS_KEPT);
  const answer = state.outcome.finalAnswer ?? `(no answer: the turn stopped with ${reason})`;
  conversation.history.push({
    user: eventText(state.query, HISTORY_CHARS),
    assistant: eventText(answer, HISTORY_CHARS),
  });
  conversation.history.splice(0, conversation.history.length - HISTORY_TURNS);
  const { turn, finalAnswer, terminationDetail: detail } = record;
  state.events.emit({ type: 'turn_ended', turn, finalAnswer, reason, detail });
}

/** Resets what belongs to one turn, and makes `message` the task the loop works on. */
function beginTurn(state: RunState, conversation: ConversationState, message: string): void {
  conversation.turn += 1;
  conversation.iterationsAtTurnStart = state.counters.iterations;
  conversation.tokensAtTurnStart = state.counters.usage.totalTokens;
  conversation.turnStartedAtMs = Date.now();
  state.query = message;
  clearOutcome(state.outcome);
  // The earlier turns reach the model as question and answer; their tool steps stay in the trace only.
  clearWindow(state.transcript);
  clearGuidance(state.prompt);
  clearCallSignatures(state.counters);
  enterPhase(state.activity, 'thinking');
  state.events.emit({ type: 'turn_started', turn: conversation.turn, message: eventText(message) });
  publishStatus(state);
}

/**
 * After a turn: waits (a durable timer of `conversation.idleTimeout`) for the next message and starts its turn.
 * False when the run is no conversation, was cancelled, or no message came in time: the run then completes.
 */
export async function nextTurn(state: RunState): Promise<boolean> {
  const conversation = state.conversation;
  if (!conversation) return false;
  // A run that took over while its conversation waited goes on waiting; else the turn that ended is kept.
  let awaiting = conversation.awaiting;
  if (awaiting) {
    // A run that took over mid-wait: the last turn's outcome is the run's until a message comes.
    resumeOutcome(state.outcome, awaiting);
  } else {
    endTurn(state, conversation);
    if (state.outcome.stop?.reason === 'cancelled') return false;
    awaiting = awaitingOf(state);
    conversation.awaiting = awaiting;
  }
  enterPhase(state.activity, 'awaiting_message');
  publishStatus(state);
  const idleMs = parseDuration(state.config.conversation.idleTimeout!)!;
  // A conversation of one-iteration turns never reaches the loop's check between iterations, so it hands over here
  // too: the next run goes on waiting, with what is left of the idle timeout. Messages that are already waiting go
  // with it: a conversation kept busy would otherwise never be idle, and never hand over.
  const remainingMs = Math.max(1, idleMs - (Date.now() - awaiting.sinceMs));
  const due = () => idleHandOverDue(state);
  let arrived: boolean;
  try {
    arrived = await condition(() => conversation.inbox.length > 0 || due(), remainingMs);
  } catch (error) {
    // Cancelled while it waits for a message: the conversation ends as cancelled, keeping the last turn's answer (the
    // outcome still holds that turn's reason, which the loop's own stop would not replace).
    if (isCancellation(error))
      resumeOutcome(state.outcome, { ...awaiting, stop: { reason: 'cancelled', detail: 'the run was cancelled' } });
    throw error;
  }
  if (!arrived) return false;
  if (due()) await continueAsNewNow(state);
  delete conversation.awaiting;
  beginTurn(state, conversation, conversation.inbox.shift()!);
  return true;
}

/**
 * What a waiting conversation carries into the next run: when the wait began, and the last turn's outcome. It goes in
 * the hand-over's fixed part beside a full message queue, so answer and output are kept to a size that always fits.
 */
function awaitingOf(state: RunState): NonNullable<ConversationState['awaiting']> {
  const { finalAnswer, output, stop, confidence } = state.outcome;
  return {
    sinceMs: Date.now(),
    finalAnswer:
      finalAnswer !== null && finalAnswer.length > AWAITING_MAX_CHARS
        ? `${headOf(finalAnswer, AWAITING_MAX_CHARS)}… [cut when the conversation handed over; the whole answer is in the trace]`
        : finalAnswer,
    stop: stop ? { reason: stop.reason, detail: stop.detail } : null,
    ...(output !== undefined && JSON.stringify(output).length <= AWAITING_MAX_CHARS ? { output } : {}),
    confidence,
  };
}

/**
 * Events a conversation's run may hold before it hands over between turns. Every update (a message, a decision, an
 * event poll) adds at least two, and Temporal refuses a run's 2,001st update: this stays well under that (fewer than
 * 1,500 updates), busy or idle.
 */
const IDLE_HANDOVER_EVENTS = 3_000;

function idleHandOverDue(state: RunState): boolean {
  return shouldContinueAsNew(state) || workflowInfo().historyLength >= IDLE_HANDOVER_EVENTS;
}
