import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { Answer, AppliedDecision, Decision, PendingDecisions } from './approvals';
import type { AppliedBudgetDecision, BudgetDecision } from './budget';
import type { AgentStatus, ReActTrace } from './types';
import type { EventPage, EventsWaitResult, ModelDelta, ToolProgressReport } from './events';
import type { PromptSnapshot } from './protocol/prompt-delta';

/** The task queue workers poll and clients start runs on, unless TEMPORAL_TASK_QUEUE overrides it. */
export const DEFAULT_TASK_QUEUE = 'durable-react-agent';

/** Name of the agent workflow type, as registered by the worker. */
export const AGENT_WORKFLOW_TYPE = 'reactAgentWorkflow';

/** Where a reader of a run's events is: the last `seq` it saw (0 from the start). */
export interface EventCursor {
  after: number;
}

/** A follow-up message for a conversation. */
export interface FollowUpMessage {
  text: string;
  /**
   * The sender's ID for this message, the same when it sends the message again: a conversation that handed over to a
   * new run while the message was on its way takes it once (its recent IDs travel with it) and answers the same turn.
   */
  id?: string;
}

/** What `sendMessage` answers: the turn the message will be answered in. */
export interface QueuedTurn {
  turn: number;
}

/** The trace so far: steps, usage, error history. */
export const getTraceQuery = defineQuery<ReActTrace>('getTrace');
/** The scratchpad as the model sees it (Thought/Action/Observation text). */
export const getScratchpadQuery = defineQuery<string>('getScratchpad');
/** Where the run is: thinking, acting, finishing or completed. */
export const getStatusQuery = defineQuery<AgentStatus>('getStatus');

/**
 * The prompt of the run's latest model call (null before the first): a worker that does not hold the previous prompt
 * rebuilds a delta's prompt from it (see `PromptDelta`).
 */
export const getPromptQuery = defineQuery<PromptSnapshot | null>('getPrompt');

/** Calls and questions waiting for a person. */
export const getPendingQuery = defineQuery<PendingDecisions>('getPending');

/** Decide a pending call and learn the outcome; refused (the call stays pending) when the payload is not valid. */
export const decideUpdate = defineUpdate<AppliedDecision, [Decision]>('decide');
/** The same decision for senders that cannot wait (e.g. the Temporal UI's signal form); an invalid one is recorded. */
export const decideSignal = defineSignal<[Decision]>('decide');

/** Answer the model's clarification question; returns the question it answered. */
export const answerUpdate = defineUpdate<string, [Answer]>('answer');
/** The same answer as a signal. */
export const answerSignal = defineSignal<[Answer]>('answer');

/** Raise the limit a run asks about (`limits.onReached: 'ask'`) or stop it there; refused when nothing or another is pending. */
export const decideBudgetUpdate = defineUpdate<AppliedBudgetDecision, [BudgetDecision]>('decideBudget');
/** The same budget decision as a signal; an invalid one is recorded. */
export const decideBudgetSignal = defineSignal<[BudgetDecision]>('decideBudget');

/** Events after a cursor (`after` = the last seq seen; 0 from the start), a bounded page at a time. */
export const getEventsQuery = defineQuery<EventPage, [EventCursor]>('getEvents');
/**
 * Long-poll: completes once there are events after `after`, the run ends, or it hands over to its next run. It
 * returns no events itself (the client reads them with `getEvents`), so history records only this small answer.
 */
export const waitForEventsUpdate = defineUpdate<EventsWaitResult, [EventCursor]>('waitForEvents');
/**
 * A follower asks the run to write its events into history: from then on each model call's input carries
 * the events recorded since the previous one, which followers read from history (no action per read) instead of asking
 * the run. Sent once per run; a continued run keeps publishing.
 */
export const publishEventsSignal = defineSignal('publishEvents');
/** Streamed model text from the model activity (`stream: true`); it becomes `thought_delta` events. */
export const modelDeltaSignal = defineSignal<[ModelDelta]>('modelDelta');
/** A running tool's progress report from its activity; it becomes a `tool_progress` event. */
export const toolProgressSignal = defineSignal<[ToolProgressReport]>('toolProgress');

/**
 * A follow-up message for a conversation (a run with `conversation.idleTimeout`): queued for the next turn, whose
 * number it returns. Refused, leaving no trace, when the run is no conversation, has ended, or the text is empty.
 */
export const sendMessageUpdate = defineUpdate<QueuedTurn, [FollowUpMessage]>('sendMessage');
