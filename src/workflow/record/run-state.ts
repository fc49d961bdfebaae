import type { BudgetLimits, BudgetRecord } from '../../shared/budget';
import type { ResolvedConfig } from '../../shared/config';
import type { RanAhead } from '../../shared/tool-protocol';
import { outputSchemaOf } from '../../shared/output';
import { ApprovalBook } from './approval-book';
import { callHook, type AgentHooks } from '../hooks';
import { countTokens } from './metrics';
import { traceSteps } from '../../shared/step-archive';
import { EventLog } from './event-log';
import { createOutcome, decideStop, type RunOutcome } from './outcome';
import { createActivity, type RunActivity } from './run-activity';
import { createPromptState, type PromptState } from './prompt-state';
import { appendStep, createTranscript, type Transcript } from './transcript';
import { addError, addTokens, createCounters, type RunCounters } from './run-counters';
import { LATEST_RULE_SET, type RuleFlags } from '../rule-sets';
import { carryCost, createLedger, recordModelCall, toRunCost, type CostLedger } from './cost-ledger';
import type { LocalStart } from './engine-action-counter';
import type {
  WorkerTerms,
  AgentErrorKind,
  AgentErrorRecord,
  CarriedState,
  ConversationState,
  ReActResult,
  ReActStep,
  ReActTrace,
  RunLineage,
  StructuredOutput,
} from '../../shared/types';
import type { TerminationReason } from '../../shared/termination-reasons';
import type { TokenUsage } from '../../shared/cost';

/** The tools that may run ahead and the results they got ahead; run-ahead.ts writes it. */
export interface RunAheadState {
  readonly tools: readonly string[];
  readonly results: ReadonlyMap<string, RanAhead>;
}

/**
 * The limits a person may raise as they stand now, the chain's decided budget requests, and the time budget's detail
 * once it ran out; budget-request.ts writes it. The loop reads these limits, not the config's.
 */
export interface BudgetState {
  readonly limits: BudgetLimits;
  readonly requests: readonly BudgetRecord[];
  readonly timeUp: string | null;
}

/** Everything one run knows; plain data so queries can read it at any time. */
export interface RunState {
  /** The task of the current turn: the run's query, or a conversation's latest message. */
  query: string;
  readonly config: ResolvedConfig;
  /** What the worker that started the chain recorded with it: model-call placement and policy, run-ahead, price. */
  readonly terms: WorkerTerms;
  readonly workflowId: string;
  readonly startedAtMs: number;
  /** The steps of the trace and of the model's window, and the summary (transcript.ts writes them). */
  readonly transcript: Transcript;
  /** Position in the continue-as-new chain (1 = first run). */
  readonly run: number;
  /** Iterations, tokens, tool calls and errors of the chain so far (run-counters.ts writes them). */
  readonly counters: RunCounters;
  /** Feedback and notes for the next call, the last prompt sent, prompt sizes learnt (prompt-state.ts writes them). */
  readonly prompt: PromptState;
  /** The run's phase and running tools, and what it last published (run-activity.ts writes them). */
  readonly activity: RunActivity;
  /** Read-only tools that may run ahead in model calls, and what the latest reply's calls got ahead (run-ahead.ts). */
  readonly runAhead: RunAheadState;
  /** Why the run stops and what it answered (outcome.ts writes it). */
  readonly outcome: RunOutcome;
  /** Hooks of a user's workflow (none for the stock agent workflow). */
  readonly hooks: AgentHooks;
  /**
   * The rules the loop follows (see rule-sets.ts): the newest generation's for new runs, the one a recorded run was
   * recorded with when it replays. Rule changes that alter commands add a generation instead of a patch each.
   */
  readonly rules: RuleFlags;
  /** Whether the final answer must match an output schema (`output.schema` or a signature); the worker checks it. */
  readonly checksOutput: boolean;
  /** Calls and questions waiting for a person, and the decisions' rules. */
  readonly approvals: ApprovalBook;
  /** Whether AgentStatus/AgentPendingTools may be upserted (they were set at start). */
  readonly searchAttributes: boolean;
  /** The run's event stream (in memory; consumers read it with getEvents / waitForEvents). */
  readonly events: EventLog;
  /** A conversation's turns and inbox; null for a one-shot run (no `conversation.idleTimeout`). */
  conversation: ConversationState | null;
  /** Budget requests (`limits.onReached: 'ask'`) of the whole chain, and the time budget's detail (budget-request.ts). */
  readonly budget: BudgetState;
  /** The parent of a fork or continuation, kept across the chain. */
  readonly lineage: RunLineage | null;
  /** What the chain and its subagents cost so far: tokens, money, tool time, engine actions (cost-ledger.ts). */
  readonly cost: CostLedger;
}

/** What a run starts from. */
export interface RunStateOptions {
  query: string;
  config: ResolvedConfig;
  terms: WorkerTerms;
  workflowId: string;
  nowMs: number;
  /** Whether the run may upsert its search attributes (they were set at start). */
  searchAttributes?: boolean;
  /** The chain's state, when the run continues one (or starts from a seed). */
  carried?: CarriedState;
  hooks?: AgentHooks;
  /** The run's rules; the newest generation's by default. */
  rules?: RuleFlags;
  /** The context window the worker assumed for a new run's model (prepareRun); a continued run carries its own. */
  assumedContextWindow?: number;
  /** The task in which the run's first model call may open locally (prepareRun's `opensLocally`). */
  opening?: LocalStart;
  /** A fork's or continuation's steps, which the new run's trace starts with. */
  seededSteps?: readonly ReActStep[];
}

/** A fresh run, or the next run of a chain when `carried` comes from continue-as-new. */
export function createRunState(options: RunStateOptions): RunState {
  const { query, config, terms, workflowId, nowMs, carried, hooks = {}, rules = LATEST_RULE_SET.flags } = options;
  const { maxIterations, tokenBudget, timeoutSeconds, cost } = config.limits;
  const approvals = new ApprovalBook(carried?.alwaysApproved, {
    requireSigned: config.approvals.requireSigned,
    ...(carried?.usedSignatures ? { usedSignatures: carried.usedSignatures } : {}),
  });
  return {
    query,
    config,
    terms,
    workflowId,
    startedAtMs: carried?.startedAtMs ?? nowMs,
    transcript: createTranscript(carried, options.seededSteps),
    run: carried?.run ?? 1,
    counters: createCounters(carried),
    prompt: createPromptState(carried, options.assumedContextWindow ?? carried?.assumedContextWindow, options.opening),
    activity: createActivity(),
    runAhead: { tools: [], results: new Map() },
    outcome: createOutcome(),
    hooks,
    rules,
    checksOutput: outputSchemaOf(config) !== undefined,
    approvals,
    events: new EventLog(carried?.run ?? 1, carried?.events),
    conversation: null,
    budget: {
      limits: { maxIterations, tokenBudget, timeoutSeconds, cost },
      requests: carried?.budgetRequests ?? [],
      timeUp: null,
    },
    lineage: carried?.lineage ?? null,
    cost: createLedger(carried?.cost),
    searchAttributes: options.searchAttributes ?? false,
  };
}

/** Error history entries carried into the next run: the latest ones, so a long run's state stays small. */
export const CARRIED_ERRORS = 50;

/** The compact state the next run of the chain starts from. */
export function toCarried(state: RunState): CarriedState {
  return {
    run: state.run + 1,
    terms: state.terms,
    startedAtMs: state.startedAtMs,
    iterations: state.counters.iterations,
    usage: state.counters.usage,
    toolUsage: state.counters.toolUsage,
    toolRuns: state.counters.toolRuns,
    rejectedThoughts: state.counters.rejectedThoughts,
    errorHistory: state.counters.errorHistory.slice(-CARRIED_ERRORS),
    callSignatures: [...state.counters.callSignatures],
    alwaysApproved: [...state.approvals.alwaysApproved],
    // A signature accepted in an earlier run of the chain is still spent.
    ...(state.approvals.usedSignatures.length > 0 ? { usedSignatures: [...state.approvals.usedSignatures] } : {}),
    summary: state.transcript.summary,
    window: state.config.history.carrySteps > 0 ? state.transcript.window.slice(-state.config.history.carrySteps) : [],
    feedback: [...state.prompt.feedback],
    notes: [...state.prompt.notes],
    stepsBefore: state.transcript.stepsBefore + state.transcript.steps.length,
    promptTokenRatio: state.prompt.tokenRatio,
    ...(state.prompt.learnedContextWindow !== undefined
      ? { learnedContextWindow: state.prompt.learnedContextWindow }
      : {}),
    ...(state.prompt.assumedContextWindow !== undefined
      ? { assumedContextWindow: state.prompt.assumedContextWindow }
      : {}),
    events: state.events.carry(),
    ...(state.conversation ? { conversation: state.conversation } : {}),
    ...(state.budget.requests.length > 0 ? { budgetRequests: [...state.budget.requests] } : {}),
    ...(state.lineage ? { lineage: state.lineage } : {}),
    cost: carryCost(state.cost),
  };
}

/** Records a step in the trace and in the model's window. */
export function recordStep(state: RunState, step: ReActStep): void {
  if (state.conversation) step.turn = state.conversation.turn;
  appendStep(state.transcript, step);
}

/**
 * Asks the shouldStop hook about a step just recorded. Synchronous unless the hook answers with a promise, so a run
 * without an asynchronous hook does exactly what it did before hooks could be.
 */
export function askShouldStop(state: RunState, step: ReActStep): void | Promise<void> {
  const shouldStop = state.hooks.shouldStop;
  if (!shouldStop || step.action.type === 'final_answer') return;
  const verdict = callHook('shouldStop', () => shouldStop(step));
  const stop = (answer: boolean | string) => {
    if (answer) stopRun(state, 'custom', typeof answer === 'string' ? answer : 'the shouldStop hook stopped the run');
  };
  return verdict instanceof Promise ? verdict.then(stop) : stop(verdict);
}

/** Workflow time as an ISO string (deterministic: the SDK replaces Date inside workflows). */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Longest message an error-history entry keeps: the history is part of every result and query. */
export const MAX_ERROR_MESSAGE = 1000;

/** What an error-history entry of a tool call adds: which tool, and how its attempts went. */
export type ToolErrorDetails = Pick<AgentErrorRecord, 'tool' | 'retries' | 'recovered'>;

/** Adds an entry to the error history; a long message (say, from a hostile signal) is cut and says so. */
export function recordError(
  state: RunState,
  kind: AgentErrorKind,
  message: string,
  details: ToolErrorDetails = {},
): void {
  const kept =
    message.length > MAX_ERROR_MESSAGE
      ? `${message.slice(0, MAX_ERROR_MESSAGE)}… [${message.length - MAX_ERROR_MESSAGE} more characters]`
      : message;
  addError(state.counters, {
    iteration: state.counters.iterations,
    kind,
    message: kept,
    timestamp: nowIso(),
    ...details,
  });
}

/** Adds the usage of one model call. */
export function recordUsage(state: RunState, usage: TokenUsage): void {
  addTokens(state.counters, usage);
  countTokens(usage);
}

/** A summarise or critic call's usage: in the counters as always, and in the cost ledger with its model's price. */
export function recordHelperCall(state: RunState, kind: 'summarize' | 'critic' | 'sample', usage: TokenUsage): void {
  recordUsage(state, usage);
  recordModelCall(state.cost, state.terms.pricing, { kind, iteration: state.counters.iterations, usage });
}

/** Ends the run with this reason unless a reason was already decided (the first cause wins). */
export function stopRun(state: RunState, reason: TerminationReason, detail: string): void {
  decideStop(state.outcome, reason, detail);
}

/** The trace as queries and the result present it. */
export function toTrace(state: RunState): ReActTrace {
  return {
    steps: traceSteps(state.transcript.steps, state.transcript.stepsChars),
    finalResult: state.outcome.finalAnswer,
    terminationReason: state.outcome.stop?.reason ?? null,
    totalIterations: state.counters.iterations,
    totalTokens: state.counters.usage.totalTokens,
    toolUsage: state.counters.toolUsage,
    toolRuns: state.counters.toolRuns,
    errorHistory: [...state.counters.errorHistory],
    rejectedThoughts: state.counters.rejectedThoughts,
    terminationDetail: state.outcome.stop?.detail ?? null,
    run: state.run,
    stepsInEarlierRuns: state.transcript.stepsBefore,
    summary: state.transcript.summary,
    ...(state.outcome.forcedFinalAnswer ? { forcedFinalAnswer: state.outcome.forcedFinalAnswer } : {}),
    ...(state.conversation ? { turns: state.conversation.turns } : {}),
    ...(state.budget.requests.length > 0 ? { budgetRequests: [...state.budget.requests] } : {}),
    ...(state.lineage ? { lineage: state.lineage } : {}),
    cost: toRunCost(state.cost),
  };
}

/** The run's result once it has stopped. */
export function toResult(state: RunState, nowMs: number): ReActResult {
  const reason = state.outcome.stop?.reason ?? 'failure';
  const trace = toTrace(state);
  const result: ReActResult = {
    success: reason === 'success',
    finalAnswer: state.outcome.finalAnswer,
    terminationReason: reason,
    trace,
    tokenUsage: state.counters.usage,
    executionTimeMs: Math.max(0, nowMs - state.startedAtMs),
    workflowId: state.workflowId,
    ...(state.outcome.output !== undefined ? { output: state.outcome.output } : {}),
    ...(state.outcome.confidence !== null ? { confidence: state.outcome.confidence } : {}),
  };
  if (state.config.output.mode !== 'structured') return result;
  // The reasoning is the last real thought: a native final answer's text is the answer itself.
  const thoughts = state.transcript.steps
    .map((step) => step.thought)
    .filter((thought) => thought !== '' && thought !== state.outcome.finalAnswer);
  const structured: StructuredOutput = {
    answer: state.outcome.output ?? state.outcome.finalAnswer,
    reasoning: thoughts[thoughts.length - 1] ?? '',
    confidence: state.outcome.confidence,
    toolUsage: state.counters.toolUsage,
    iterations: state.counters.iterations,
    summary: state.transcript.summary,
    errorHistory: [...state.counters.errorHistory],
  };
  return { ...result, structured };
}
