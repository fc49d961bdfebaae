import type { CritiqueInput, CritiqueOutput } from '../shared/critic';
import type { CallModelInput, ChatMessage, ModelReply } from '../shared/protocol';
import type { SummarizeInput, SummarizeOutput } from '../shared/summaries';
import type { ToolObservation } from '../shared/tool-protocol';
import type { AgentWorkflowInput, ReActResult, ReActStep, ReActTrace } from '../shared/types';
import type { ScriptedTurn } from '../testing/scripted-turn';

/* What replay-check reads from a recorded run chain (see recording.ts, which reads it). */

/** What every recorded model call has, whichever activity made it. */
interface ModelCallBase {
  /** Ran as a local activity (config `modelCalls: 'local'`): its input is not in the history. */
  local: boolean;
  /**
   * The whole prompt (`callModel` only) when the history holds it: a full `messages` input, or the run's deltas
   * rebuilt with applyPromptDelta. Null for local calls, a `fetch` delta (a continued run's first prompt) and the
   * deltas built on one, and for summaries and verdicts, whose prompt the worker builds from `input`.
   */
  prompt: ChatMessage[] | null;
  /** Set instead of `output` when the activity failed for good (retries used up, or not retryable). */
  failure?: ModelCallFailure;
  /**
   * The call never closed, or closed as cancelled: the run stopped (cancelled, out of time, terminated) while it
   * waited. No output and no failure; its turn never arrives.
   */
  interrupted?: true;
  /** Attempts the recording made (a failure was answered the same way on each). */
  attempts: number;
  /** What the scripted model must answer for the current worker code to return `output` again (or fail so). */
  turn: ScriptedTurn;
  /** How long the call took in the recording (scheduled to closed), when the history says. */
  durationMs?: number;
}

/** A model-hitting activity of the recording, in chain order: what it was asked (when recorded) and what it answered. */
export type RecordedModelCall =
  | (ModelCallBase & { kind: 'callModel'; input?: CallModelInput; output?: ModelReply })
  | (ModelCallBase & { kind: 'summarize'; input?: SummarizeInput; output?: SummarizeOutput })
  | (ModelCallBase & { kind: 'critique'; input?: CritiqueInput; output?: CritiqueOutput });

/** A model activity that failed for good, as the history recorded its failure. */
export interface ModelCallFailure {
  message: string;
  type?: string;
  nonRetryable?: boolean;
}

/** A tool activity of the recording (runTool, remote or local) and what it returned. */
export interface RecordedToolCall {
  tool: string;
  args: unknown;
  /** The workflow's call ID (`c<step>-<n>`); '' for a local call the history does not tie to a model reply. */
  callId: string;
  local: boolean;
  /** The activity's result (before the workflow summarised it); null when it failed or was interrupted. */
  observation: ToolObservation | null;
  /** Why the activity failed for good (its attempts used up, or timed out). */
  failure?: string;
  /** The run stopped while the call ran: replayed, it runs until the replay stops it too. */
  interrupted?: true;
  /** A read-only tool answered it inside the model call (its result is in the recorded reply). */
  ranAhead?: true;
}

/** A person's decision, answer or budget decision, with its payload as sent. */
export interface RecordedDecision {
  message: 'decide' | 'answer' | 'decideBudget';
  via: 'update' | 'signal';
  payload: Record<string, unknown>;
  /** Why the run's handler refused it (an update only; e.g. an edit whose arguments failed validation). */
  refused?: string;
}

/** How the chain's last run ended (`continued`: it handed over to a run that is not among the histories). */
export type RecordedOutcome =
  | { status: 'completed'; result: ReActResult }
  | { status: 'failed'; message: string; type?: string; trace?: ReActTrace }
  | { status: 'cancelled' | 'terminated' | 'timed_out' | 'running' | 'continued' };

/** Everything replay-check needs of one recorded continue-as-new chain. */
export interface Recording {
  workflowId: string;
  workflowType: string;
  /** The first run's input (query, config; a fork's seed; `carried` when the chain's first run is missing). */
  input: AgentWorkflowInput;
  /** How many runs (histories) the chain has. */
  runs: number;
  modelCalls: RecordedModelCall[];
  toolCalls: RecordedToolCall[];
  decisions: RecordedDecision[];
  /** Set when someone asked the run to cancel: how many model calls had completed before the request. */
  cancelRequested: { afterModelCalls: number } | null;
  /** Child workflows the run started (subagents), in order. */
  children: Array<{ workflowId: string; workflowType: string }>;
  /** Steps of the chain's earlier runs, from the archives in the later runs' start events. */
  earlierSteps: ReActStep[];
  outcome: RecordedOutcome;
}
