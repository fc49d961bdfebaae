import type { DecisionOutcome } from './approvals';
import type { BudgetRecord } from './budget';
import type { CarriedCost, RunCost, RunPricing, TokenUsage } from './cost';
import type { TerminationReason } from './termination-reasons';
import type { AgentConfig, ModelCallPolicy } from './config';
import type { CarriedEvents } from './events';
import type { Decider } from './identity';
import type { StepEffect } from './tool-protocol';

/** What the agent decided to do in one step: a tagged union on `type`. */
export type ReActAction =
  | ({ type: 'tool_call'; tool: string; args: unknown; callId: string } & ServerCallId)
  | { type: 'final_answer'; answer: string }
  | ({ type: 'clarification'; question: string; callId?: string } & ServerCallId)
  | ({ type: 'delegate'; agent: string; task: string; callId?: string } & ServerCallId);

/**
 * The ID the model's server gave a call, beside the run's own `callId` (`c3-1`, which approvals, idempotency keys
 * and history use). It is sent back to the server exactly: Mistral's API, and vLLM serving Mistral models, refuse a
 * conversation whose call IDs are not the ones they issued. Absent when the server gave none or repeated one.
 */
export interface ServerCallId {
  serverCallId?: string;
}

/** One Thought → Action → Observation step of the trace. */
export interface ReActStep {
  iteration: number;
  /** What the model reasoned: reasoning it gave apart (a reasoning field, a `<think>` block), then its text. */
  thought: string;
  /** How many characters at the start of `thought` are reasoning given apart (absent: none). */
  reasoningChars?: number;
  action: ReActAction;
  /** The tool's result as the model saw it (truncated); null for a final answer. */
  observation: string | null;
  /** True when the observation reports an error (unknown tool, bad arguments, a failing tool...). */
  isError?: boolean;
  /** A JSON tool result kept as data beside its text rendering. */
  observationData?: unknown;
  /** True when the observation was cut to `maxObservationTokens`. */
  truncated?: boolean;
  /** Set when the model summarised a long observation: the raw result's estimated tokens. */
  summarizedFromTokens?: number;
  /** True for the final answer the runtime asked for after a non-success stop. */
  forced?: boolean;
  /** The critic's judgement of this step's observation (critic mode). */
  critic?: { decision: string; reasoning: string; confidence: number; refinedQuery?: string; suggestion?: string };
  /** The child workflow that ran a delegated task. */
  childWorkflowId?: string;
  /** How a call that needed confirmation was settled: by a person's decision, or `timeout`. */
  decision?: DecisionOutcome;
  /**
   * A tool call's effect evidence: attempts, whether an effect may have happened unseen, what the tool's `reconcile`
   * said, and how a person settled an uncertain one (`decision`: approve = ran again, respond = treated as done,
   * reject = skipped, with who decided). Absent when the call ran once and its result was seen.
   */
  effect?: StepEffect;
  /** Who answered a clarification question (absent when it timed out, and in runs recorded before it was kept). */
  answeredBy?: Decider;
  /**
   * True on a step whose structured data was dropped and whose observation may be cut (it then says where: the run's
   * archive, trace or window) to keep a payload under Temporal's 2 MB limit: the archive of an earlier run (see
   * {@link ArchivedSteps}), the result and trace of a run whose steps outgrew it in one iteration, or a prompt.
   */
  clippedInArchive?: boolean;
  /** ISO time the step was recorded (workflow time, so replay-safe). */
  timestamp: string;
  /** The conversation turn the step belongs to (conversations only; see `conversation.idleTimeout`). */
  turn?: number;
  /** Usage of the model call that produced this step (zero on the 2nd+ parallel call of one reply). */
  tokenUsage: TokenUsage;
  /** Taken as recorded from the run this one was forked or continued from: not executed again (see `lineage`). */
  seeded?: true;
  /** The observation was replaced by the person who forked the run (`fork --observation`). */
  edited?: true;
}

/**
 * Kinds of problems recorded in a run's error history; each was fed back to the model or ended the run, except a
 * tool error a later attempt recovered from (`recovered: true`).
 */
export type AgentErrorKind =
  | 'invalid_thought'
  | 'malformed_output'
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'tool_error'
  | 'tool_limit'
  | 'model_error'
  | 'invalid_decision'
  | 'invalid_output';

/** One entry of the error history. */
export interface AgentErrorRecord {
  iteration: number;
  kind: AgentErrorKind;
  message: string;
  timestamp: string;
  /** The tool whose call it was, for errors of a tool call. */
  tool?: string;
  /** Attempts after the first that the tool's handler took (absent when unknown, e.g. the call never ran). */
  retries?: number;
  /** Whether a later attempt succeeded: the model then saw the result, not this error. Set with `retries`. */
  recovered?: boolean;
}

/** The full record of a run, also served by the `getTrace` query while it runs. */
export interface ReActTrace {
  steps: ReActStep[];
  finalResult: string | null;
  terminationReason: TerminationReason | null;
  /** Model calls made by the loop (forced final answer excluded). */
  totalIterations: number;
  totalTokens: number;
  /** Calls per tool name, including refused ones. */
  toolUsage: Record<string, number>;
  /**
   * Calls per tool name that ran: calls refused (unknown tool, bad arguments, a hook), rejected or answered by a person,
   * or left without a decision are not counted; while the run is live, calls still settling count. `maxCallsPerTool`
   * caps these.
   */
  toolRuns: Record<string, number>;
  errorHistory: AgentErrorRecord[];
  /** Replies refused by thought validation (missing, short or degenerate thought). */
  rejectedThoughts: number;
  /** A human-readable reason for the stop, e.g. "repeat: the same calls in 3 iterations in a row: search {…}". */
  terminationDetail: string | null;
  /** Which run of the continue-as-new chain this is (1 = the first); `steps` are this run's own. */
  run: number;
  /** Steps recorded by the earlier runs of the chain (AgentClient stitches them back in). */
  stepsInEarlierRuns: number;
  /** The running summary the model sees as "Conversation so far", if any. */
  summary: string | null;
  /**
   * After a stop other than success or cancellation: whether the forced final answer was given, skipped (e.g. it
   * would not fit in the token budget), failed, or cut short (it outran the time budget plus its slice), and why.
   * Absent when none was due or `forceFinalAnswer` is off.
   */
  forcedFinalAnswer?: { status: 'given' | 'skipped' | 'failed' | 'cut_short'; reason?: string };
  /** A conversation's turns so far, oldest first (absent for a run that takes no follow-up messages). */
  turns?: TurnRecord[];
  /** Requests to raise a limit (`limits.onReached: 'ask'`) across the chain and how each ended; absent when there were none. */
  budgetRequests?: BudgetRecord[];
  /** The run this one was forked or continued from (absent for a run started from a query alone). */
  lineage?: RunLineage;
  /** What the run cost so far: its chain and subagents (see docs/what-a-run-cost.md); absent from older versions. */
  cost?: RunCost;
}

/** Where a forked or continued run came from: its parent run and how many of the parent's steps it took. */
export interface RunLineage {
  kind: 'fork' | 'continue';
  /** The parent's workflow ID, and the run of its chain that was latest when this one was made. */
  workflowId: string;
  runId: string;
  /** The parent's steps 1..step (by iteration, as `trace` numbers them) were taken as recorded. */
  step: number;
  /** Whether step `step`'s observation was replaced (fork only). */
  observationEdited: boolean;
}

/**
 * What a fork or continuation starts from, built by the client from the parent's trace: the steps taken as recorded,
 * where the model's window of them starts, and the counters as they stood after them.
 */
export interface RunSeed {
  lineage: RunLineage;
  steps: ReActStep[];
  /** Index in `steps` of the first step the model sees (earlier ones had left the parent's window). */
  windowFrom: number;
  totals: {
    iterations: number;
    usage: TokenUsage;
    toolUsage: Record<string, number>;
    toolRuns: Record<string, number>;
    errorHistory: AgentErrorRecord[];
    rejectedThoughts: number;
    /**
     * The chain's cost ledger so far, so a money budget is a total as the token budget is. A continuation carries
     * its parent's; a fork, which keeps only some steps, starts its own (absent from older clients' seeds).
     */
    cost?: CarriedCost;
  };
}

/** One finished turn of a conversation: the user's message, and how the agent's answer to it ended. */
export interface TurnRecord {
  turn: number;
  message: string;
  finalAnswer: string | null;
  terminationReason: TerminationReason;
  terminationDetail: string | null;
  /** Iterations and tokens this turn used. */
  iterations: number;
  tokens: number;
}

/** A conversation's state, carried across continue-as-new. */
export interface ConversationState {
  /** The turn being answered (1 = the run's query). */
  turn: number;
  /** Turn numbers handed out to messages so far (the current turn and those queued). */
  assigned: number;
  /** Messages waiting for their turn, oldest first. */
  inbox: string[];
  /** Earlier turns as the model sees them: user message and answer, the newest few, cut to a preview. */
  history: Array<{ user: string; assistant: string }>;
  turns: TurnRecord[];
  iterationsAtTurnStart: number;
  tokensAtTurnStart: number;
  turnStartedAtMs: number;
  /** The newest messages' sender IDs and the turns they were given, oldest first (absent until a message has one). */
  taken?: Array<[id: string, turn: number]>;
  /**
   * Set while the conversation waits for a message: when the wait began, and how the last turn ended, so
   * a run that takes over mid-wait waits out the rest of the idle timeout and, if nothing comes, returns that turn.
   */
  awaiting?: {
    sinceMs: number;
    finalAnswer: string | null;
    stop: { reason: TerminationReason; detail: string } | null;
    output?: unknown;
    confidence: number | null;
  };
}

/** What a run returns. */
export interface ReActResult {
  success: boolean;
  finalAnswer: string | null;
  terminationReason: TerminationReason;
  trace: ReActTrace;
  tokenUsage: TokenUsage;
  executionTimeMs: number;
  workflowId: string;
  /** The final answer as validated data, when the run has an output schema or signature. */
  output?: unknown;
  /** The confidence in [0, 1] the model gave with its final answer, if it gave one. */
  confidence?: number;
  /** With `output.mode: 'structured'`: the answer with its reasoning and the run's bookkeeping in one object. */
  structured?: StructuredOutput;
}

/** The structured result format: answer (data or text), reasoning, confidence, tool usage, iterations, summary, errors. */
export interface StructuredOutput {
  answer: unknown;
  reasoning: string;
  confidence: number | null;
  toolUsage: Record<string, number>;
  iterations: number;
  summary: string | null;
  errorHistory: AgentErrorRecord[];
}

/** Live status served by the `getStatus` query. */
export interface AgentStatus {
  /** `awaiting_message`: a conversation between turns, waiting for the user's next message. */
  state:
    'thinking' | 'acting' | 'awaiting_approval' | 'awaiting_input' | 'awaiting_message' | 'finishing' | 'completed';
  iteration: number;
  maxIterations: number;
  tokensUsed: number;
  terminationReason: TerminationReason | null;
  /** Tool calls currently executing. */
  runningTools: string[];
}

/** What a run hands to the next run of its chain when it continues-as-new: budgets, counters and compact context. */
export interface CarriedState {
  run: number;
  /** What the worker that started the chain recorded with it. */
  terms: WorkerTerms;
  startedAtMs: number;
  iterations: number;
  usage: TokenUsage;
  toolUsage: Record<string, number>;
  toolRuns: Record<string, number>;
  rejectedThoughts: number;
  errorHistory: AgentErrorRecord[];
  /** At most `stallThreshold + 2` entries (stall detection also looks for cycles). */
  callSignatures: string[];
  alwaysApproved: string[];
  /** Digests of the signatures signed decisions carried (absent when none did, and in older histories). */
  usedSignatures?: string[];
  summary: string | null;
  /** The latest steps the model still sees (not yet folded into the summary). */
  window: ReActStep[];
  feedback: string[];
  notes: string[];
  stepsBefore: number;
  /** How far the prompt-token estimate ran low (token budget; absent in state carried by older code). */
  promptTokenRatio?: number;
  /** The context window the provider stated when it refused a prompt (absent until one was refused). */
  learnedContextWindow?: number;
  /** The context window the worker assumed for the run's model at the chain's start. */
  assumedContextWindow?: number;
  /** The newest events of the stream, so a consumer resumes across the hand-over (absent from older code). */
  events?: CarriedEvents;
  conversation?: ConversationState;
  budgetRequests?: BudgetRecord[];
  /** A fork's or continuation's parent, kept by every run of its chain. */
  lineage?: RunLineage;
  /** The chain's cost ledger so far (absent from state carried by older code). */
  cost?: CarriedCost;
}

/**
 * What the worker that started a run recorded with it, apart from the caller's config: where its model calls run and
 * their policy, whether safe tools run ahead, and the price of the run's model. Recorded and carried across
 * continue-as-new, so a worker whose settings or prices changed replays the run as it was made.
 */
export interface WorkerTerms {
  modelCalls: 'activity' | 'local';
  runAhead: boolean;
  modelCallPolicy?: ModelCallPolicy;
  pricing: RunPricing;
}

/**
 * A run's own steps, handed to the next run's input when it continues-as-new so the next run's start event holds
 * them: a client reads a finished chain's trace from history alone, with no worker to answer queries.
 */
export interface ArchivedSteps {
  steps: ReActStep[];
  /** How many steps were clipped to fit the size cap (each marked `clippedInArchive`). */
  clippedSteps: number;
}

/** Input of the agent workflow. */
export interface AgentWorkflowInput {
  query: string;
  /**
   * The config as people write it (`AgentConfig`). AgentClient, continue-as-new and subagents send it resolved (every
   * default applied), which checks as itself; the worker applies the defaults and checks it (`prepareRun`).
   */
  config?: AgentConfig;
  /** Set only by continue-as-new. */
  carried?: CarriedState;
  /**
   * Set only by continue-as-new: the previous run's steps, for clients reading history. The run does
   * not keep them in its state, so they are never handed on again.
   */
  previousSteps?: ArchivedSteps;
  /** Set only for a fork or a continuation (`AgentClient.fork` / `continue`): the parent's steps to start from. */
  seed?: RunSeed;
}
