import type { AgentConfig } from '../shared/config';
import { ApprovalBook } from './approval-book';
import {
  addUsage,
  ZERO_USAGE,
  type AgentErrorKind,
  type AgentStatus,
  type ReActResult,
  type ReActStep,
  type ReActTrace,
  type TerminationReason,
  type TokenUsage,
} from '../shared/types';

/** Why and how a run is stopping. */
export interface StopDecision {
  reason: TerminationReason;
  detail: string;
}

/** Everything one run knows; plain data so queries can read it at any time. */
export interface RunState {
  readonly query: string;
  readonly config: AgentConfig;
  readonly workflowId: string;
  readonly startedAtMs: number;
  steps: ReActStep[];
  errorHistory: ReActTrace['errorHistory'];
  toolUsage: Record<string, number>;
  usage: TokenUsage;
  iterations: number;
  rejectedThoughts: number;
  /** Corrections for the model's next call; cleared once sent. */
  feedback: string[];
  /** Normalised signatures of every tool call, for stall detection. */
  callSignatures: string[];
  phase: AgentStatus['state'];
  runningTools: string[];
  stop: StopDecision | null;
  finalAnswer: string | null;
  /** Calls and questions waiting for a person, and the decisions' rules. */
  approvals: ApprovalBook;
  /** Whether AgentStatus/AgentPendingTools may be upserted (they were set at start). */
  searchAttributes: boolean;
  /** Last published status, so unchanged values are not upserted again. */
  publishedStatus: string;
}

/** A fresh run. */
export function createRunState(
  query: string,
  config: AgentConfig,
  workflowId: string,
  nowMs: number,
  searchAttributes = false,
): RunState {
  return {
    query,
    config,
    workflowId,
    startedAtMs: nowMs,
    steps: [],
    errorHistory: [],
    toolUsage: {},
    usage: ZERO_USAGE,
    iterations: 0,
    rejectedThoughts: 0,
    feedback: [],
    callSignatures: [],
    phase: 'thinking',
    runningTools: [],
    stop: null,
    finalAnswer: null,
    approvals: new ApprovalBook(),
    searchAttributes,
    publishedStatus: '',
  };
}

/** Workflow time as an ISO string (deterministic: the SDK replaces Date inside workflows). */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Adds an entry to the error history. */
export function recordError(state: RunState, kind: AgentErrorKind, message: string): void {
  state.errorHistory.push({ iteration: state.iterations, kind, message, timestamp: nowIso() });
}

/** Adds the usage of one model call. */
export function recordUsage(state: RunState, usage: TokenUsage): void {
  state.usage = addUsage(state.usage, usage);
}

/** Ends the run with this reason unless a reason was already decided (the first cause wins). */
export function stopRun(state: RunState, reason: TerminationReason, detail: string): void {
  state.stop ??= { reason, detail };
}

/** The trace as queries and the result present it. */
export function toTrace(state: RunState): ReActTrace {
  return {
    steps: state.steps,
    finalResult: state.finalAnswer,
    terminationReason: state.stop?.reason ?? null,
    totalIterations: state.iterations,
    totalTokens: state.usage.totalTokens,
    toolUsage: state.toolUsage,
    errorHistory: state.errorHistory,
    rejectedThoughts: state.rejectedThoughts,
    terminationDetail: state.stop?.detail ?? null,
  };
}

/** Live status for the getStatus query. */
export function toStatus(state: RunState): AgentStatus {
  return {
    // Waiting for a person takes precedence: parallel calls may be running and waiting at the same time.
    state: state.approvals.question
      ? 'awaiting_input'
      : state.approvals.snapshot().approvals.length > 0
        ? 'awaiting_approval'
        : state.phase,
    iteration: state.iterations,
    maxIterations: state.config.maxIterations,
    tokensUsed: state.usage.totalTokens,
    terminationReason: state.stop?.reason ?? null,
    runningTools: state.runningTools,
  };
}

/** The run's result once it has stopped. */
export function toResult(state: RunState, nowMs: number): ReActResult {
  const reason = state.stop?.reason ?? 'failure';
  return {
    success: reason === 'success',
    finalAnswer: state.finalAnswer,
    terminationReason: reason,
    trace: toTrace(state),
    tokenUsage: state.usage,
    executionTimeMs: Math.max(0, nowMs - state.startedAtMs),
    workflowId: state.workflowId,
  };
}
