import type { DecisionOutcome } from './approvals';
import type { BudgetLimit } from './budget';
import type { Decider } from './identity';
import type { TerminationReason } from './termination-reasons';
import { clip } from './well-formed';

/**
 * What happened in a run, as a service shows it to its users. Events are small on purpose: texts are previews (see
 * `EVENT_TEXT_CHARS` (4,000)), and the full record stays the trace. They live in the workflow's memory, not in its
 * history, so streaming a run does not copy its transcript into history.
 */
export type AgentEventBody =
  /** The run began (run 1 of the chain) or handed over to the next run of its chain (run > 1). */
  | { type: 'run_started'; query: string }
  | { type: 'run_continued' }
  /**
   * With `stream: true`, the model's text while it is still answering, in batches of about 100 ms. The `thought` (or
   * `final_answer`) event that follows is the whole text. `attempt` counts the call's tries.
   */
  | { type: 'thought_delta'; iteration: number; attempt: number; text: string }
  /** A retried model call starts over: drop the deltas of this iteration received so far. */
  | { type: 'thought_reset'; iteration: number; attempt: number }
  /** The model's reasoning for the calls that follow it. */
  | { type: 'thought'; iteration: number; text: string }
  | { type: 'tool_call_requested'; iteration: number; callId: string; tool: string; args: string }
  /** `reason: 'uncertain_effect'`: the call may already have had its effect; a person decides if it runs again. */
  | { type: 'approval_pending'; callId: string; tool: string; args: string; reason?: 'uncertain_effect' }
  | { type: 'approval_decided'; callId: string; decision: DecisionOutcome }
  | { type: 'tool_started'; callId: string; tool: string }
  | { type: 'tool_finished'; callId: string; tool: string; isError: boolean; observation: string }
  /**
   * Where a long call stands: an MCP server's task (its `status`, and its words when it gives some), or a tool's own
   * progress reports (`working`, with `progress` of `total` when known), at most one every few seconds.
   */
  | {
      type: 'tool_progress';
      callId: string;
      tool: string;
      status: string;
      message?: string;
      progress?: number;
      total?: number;
    }
  | { type: 'clarification_asked'; callId: string; question: string }
  | { type: 'clarification_answered'; callId: string; answer: string; by?: Decider }
  | { type: 'budget_requested'; requestId: string; limit: BudgetLimit; current: number; suggested: number }
  | {
      type: 'budget_decided';
      requestId: string;
      outcome: 'raise' | 'stop' | 'timeout';
      amount?: number;
      by?: Decider;
    }
  /** A delegated task runs as a child workflow: its own stream is `events()` of `childWorkflowId`. */
  | { type: 'subagent_started'; callId: string; agent: string; childWorkflowId: string }
  | { type: 'summary'; text: string }
  | { type: 'critic_verdict'; decision: string; reasoning: string; confidence: number }
  | { type: 'final_answer'; iteration: number; answer: string; forced: boolean }
  /** A conversation's next turn begins with the user's message (turn 1 is the run's query). */
  | { type: 'turn_started'; turn: number; message: string }
  /** A turn ended; the conversation now waits for the next message (or its idle timeout). */
  | { type: 'turn_ended'; turn: number; finalAnswer: string | null; reason: TerminationReason; detail: string | null }
  /** The last event of a run that ended: its termination reason (or `failed` when the run failed with an error). */
  | {
      type: 'terminated';
      reason: TerminationReason | 'failed';
      detail: string | null;
      /** What the run cost, its chain and subagents included (absent from older versions). */
      cost?: CostSummary;
    };

/** The cost ledger's totals as an event carries them (`trace.cost` has the rest). */
export interface CostSummary {
  /** USD of the priced calls; null when no call had a price. */
  usd: number | null;
  tokens: number;
  engineActions: number;
}

/** One event of a run's stream. */
export type AgentEvent = AgentEventBody & {
  /** 1, 2, 3… over the whole continue-as-new chain: a consumer resumes after the last one it saw. */
  seq: number;
  /** Workflow time the event was recorded (ISO). */
  at: string;
  /** Which run of the chain recorded it (1 = the first). */
  run: number;
};

/** A batch of streamed model text, signalled by the model activity to its workflow. */
export interface ModelDelta {
  iteration: number;
  attempt: number;
  text: string;
}

/** A tool's progress report, signalled by its activity to its workflow (a tool's `ToolContext.progress`). */
export interface ToolProgressReport {
  callId: string;
  progress?: number;
  total?: number;
  message?: string;
}

/** A page of events after a cursor, as the `getEvents` query answers. */
export interface EventPage {
  events: AgentEvent[];
  /** Seq of the newest event the run holds (0 when none). */
  head: number;
  /** Oldest seq the run still holds: a cursor before `oldest - 1` has missed events that are gone. */
  oldest: number;
  /** True once the run has ended and `events` reach its last event. */
  ended: boolean;
}

/** Answer of the `waitForEvents` update: there is news after the cursor, the run ended, or it is handing over. */
/** The start of the validator's refusal when a run already has its most event waits in flight (`MAX_EVENT_WAITS`). */
export const EVENT_WAITS_FULL = 'event waits are full';

export interface EventsWaitResult {
  head: number;
  ended: boolean;
  /** The run is continuing as new: ask again (the next run holds the recent events and keeps numbering them). */
  handingOver: boolean;
}

/** The events the next run of a chain starts from: the newest ones, and the seq to number on from. */
export interface CarriedEvents {
  next: number;
  items: AgentEvent[];
  /** The run wrote its events into history for followers (`publishEvents`): the next run goes on doing so. */
  publishing?: boolean;
}

/** Longest text an event carries (thoughts, answers, observations, arguments); longer ones end in "…". */
export const EVENT_TEXT_CHARS = 4000;

/** A text cut to `EVENT_TEXT_CHARS` (4,000). */
export function eventText(text: string, limit = EVENT_TEXT_CHARS): string {
  return clip(text, limit);
}

/** A call's arguments as an event shows them: JSON, cut to `EVENT_TEXT_CHARS` (4,000). */
export function argsText(args: unknown): string {
  return eventText(typeof args === 'string' ? args : (JSON.stringify(args) ?? ''));
}
