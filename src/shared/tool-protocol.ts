import type { ConfirmationPolicy, DecisionOutcome } from './approvals';
import { formatDuration } from './duration';

/** What the workflow needs to know about a tool to schedule it (the handler stays on the worker). */
export interface ToolInfo {
  name: string;
  description: string;
  category: string;
  /** Start-to-close timeout for one attempt, e.g. '30s'. */
  timeout: string;
  retry: { maximumAttempts: number; initialInterval: string; backoffCoefficient: number };
  confirm: ConfirmationPolicy;
  /** JSON Schema of the arguments, shown to a person editing a pending call (absent from older workers). */
  parameters?: Record<string, unknown>;
  /** Run as a local activity. Absent in histories recorded before the option existed, which ran every tool remotely. */
  local?: boolean;
  /** Only reads (see `readOnly` in defineTool): may run ahead inside the model call. Absent means it may not. */
  readOnly?: boolean;
  /**
   * The tool can say whether a call's effect happened (`reconcile` in defineTool): a call whose outcome nobody saw is
   * reconciled instead of run again blindly. Absent means it cannot.
   */
  reconciles?: true;
  /** Runs in another worker (a remote tool): the workflow schedules its activity there. Absent for this worker's own. */
  remote?: RemoteToolPlacement;
}

/** Where a remote tool runs: an activity type on a task queue, polled by a worker in any language. */
export interface RemoteToolPlacement {
  taskQueue: string;
  activityType: string;
  /** How long a call waits for that queue's worker before the model hears that nobody polls it, e.g. '60s'. */
  scheduleToStartTimeout: string;
}

/**
 * What the model hears when a remote tool's call waited `waitedMs` for a worker of its queue and none picked it up.
 * The workflow and replay-check both say it (the latter reads the wait from history, in seconds): one text.
 */
export function noPollerMessage(tool: string, taskQueue: string, waitedMs: number | undefined): string {
  const waited = waitedMs === undefined ? '' : ` (waited ${formatDuration(waitedMs)})`;
  return `no worker is polling task queue "${taskQueue}" for tool ${tool}${waited}`;
}

/**
 * The one argument a remote tool's activity gets (the contract other languages' workers implement): the model's
 * arguments, checked against the tool's JSON Schema, and the key to de-duplicate side effects with.
 */
export interface RemoteToolInput {
  tool: string;
  args: unknown;
  callId: string;
  idempotencyKey: string;
}

/**
 * The model call's offer to run tools ahead (see `readOnly` in defineTool): which tools may, and what the workflow
 * would give their calls, so a result the workflow admits is exactly the one its own activity would have returned.
 */
export interface RunAheadRequest {
  /** Read-only local tools that never wait for a person, in a run without a beforeToolCall hook. */
  tools: string[];
  /** The iteration the reply is for: the workflow numbers its calls `c<iteration>-<position>`. */
  iteration: number;
  maxObservationTokens: number;
  /** As `RunToolInput.fullTextOver`: a result the run will summarise comes back whole too. */
  fullTextOver?: number;
  /** A reply with more calls is refused whole by the workflow, so nothing of it runs ahead. */
  maxCalls: number;
  /** Handlers get `<keyPrefix>:<callId>` as their idempotency key, as from the tool's activity. */
  keyPrefix: string;
}

/** A call a read-only tool answered inside the model call; the workflow uses it only for the call it admits. */
export interface RanAhead {
  callId: string;
  tool: string;
  /** The arguments it ran with, as JSON: the workflow takes the result only for exactly these. */
  argsJson: string;
  observation: ToolObservation;
}

/** Input of the `validateToolArgs` activity, used to re-check arguments a person edited. */
export interface ValidateArgsInput {
  tool: string;
  args: unknown;
}

/** Output of the `listTools` activity. */
export interface ToolCatalog {
  tools: ToolInfo[];
  /** Requested names no registered tool answers to. */
  unknown: string[];
}

/** Input of the `runTool` activity. */
export interface RunToolInput {
  tool: string;
  args: unknown;
  callId: string;
  maxObservationTokens: number;
  /**
   * Set when the run summarises long observations (`history.summarizeObservationsOver`): a result over this many
   * estimated tokens comes back whole too (`fullText`, up to FULL_TEXT_MAX_CHARS), so the summary is of all of it.
   */
  fullTextOver?: number;
  /**
   * The key the handler gets: the run chain's first run ID + call ID. Absent in calls scheduled by older workflow
   * code, whose retries keep the old `workflowId:callId` key.
   */
  idempotencyKey?: string;
  /**
   * Set by runs whose rules reconcile effects (`reconcilesEffects`), for tools that can: an attempt that finds an
   * earlier attempt's outcome unknown asks the tool's `reconcile` before running the handler again.
   */
  reconcile?: true;
  /**
   * Set on the run a person approved after its call's outcome was uncertain ("run it again"): its first attempt runs
   * the handler without asking `reconcile` (the person overruled its `unknown`); its retries ask, as any retry does.
   */
  rerun?: true;
  /**
   * What the run has answered of the requests the call made back (an MCP server's `sampling/createMessage`), by
   * {@link CallNeed.key}: the call is made again with them, and each request it repeats is answered from here.
   */
  answers?: Record<string, CallAnswer>;
}

/**
 * A request a tool call made back to the run, which the run answers durably before the call is made again: an MCP
 * server asking the run's model to write (`sampling/createMessage`), asking a person to fill in a form
 * (`elicitation/create`), or a task the server runs on (`tools/call` answered with a task: the run waits on a timer
 * and the call is made again to look at it). `key` names the request among the call's.
 */
export type CallNeed = {
  server: string;
  key: string;
  /** The worker holds the server's waiting request this long at most (a task's request): the question's deadline. */
  heldMs?: number;
} &
  /** `ask`: a person lets the request through first (the server's `sampling: 'ask'`). */
  (
    | { kind: 'sampling'; request: SamplingRequest; ask?: true }
    | { kind: 'elicitation'; request: ElicitationRequest }
    | { kind: 'task'; key: 'task'; task: McpTaskState }
  );

/** An MCP task as its server last reported it (`tasks/get`). */
export interface McpTaskState {
  id: string;
  status: string;
  /** The server's words for where the task is (`statusMessage`). */
  message?: string;
  /** How long the server suggests waiting before asking again. */
  pollMs: number;
  /** The HTTP session the task belongs to: a worker started since reattaches to it. */
  session?: string;
}

/**
 * An MCP elicitation: what to ask the person, and either the JSON Schema of the answer's content (form mode) or the
 * web page the person is to open (URL mode, an http(s) URL; the answer is then only accept, decline or cancel).
 */
export interface ElicitationRequest {
  message: string;
  requestedSchema?: Record<string, unknown>;
  url?: string;
}

/** The run's answer to one of a call's requests (see {@link CallNeed}). */
export type CallAnswer =
  | ({ kind: 'sampling' } & SamplingAnswer)
  | { kind: 'elicitation'; action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }
  /** Look at the task again (its result when it has ended), or, with `cancel`, cancel it: the run no longer waits. */
  | { kind: 'task'; id: string; session?: string; cancel?: true };

/** An MCP sampling request, as the run's model is asked it: text turns, an optional system prompt, a token cap. */
export interface SamplingRequest {
  messages: Array<{ role: 'user' | 'assistant'; text: string }>;
  systemPrompt?: string;
  maxTokens: number;
}

/** What the run's model wrote for a sampling request. */
export interface SamplingAnswer {
  text: string;
  model: string;
}

/** Input of the `reconcileTool` activity: the call whose last attempt's outcome nobody saw. */
export interface ReconcileToolInput {
  tool: string;
  args: unknown;
  callId: string;
  idempotencyKey: string;
  maxObservationTokens: number;
  fullTextOver?: number;
}

/** What a tool's `reconcile` found, as the workflow reads it. */
export type ReconcileVerdict = 'done' | 'not_done' | 'unknown';

/**
 * What the runtime knows about a call's effect beyond its result: how many attempts ran, whether one of them may
 * have had its effect without its result being seen, and what `reconcile` found. The trace keeps it per call.
 */
export interface EffectEvidence {
  /** Attempts the call took, over every activity that ran it (a re-run after reconcile counts on). */
  attempts: number;
  /** True when an attempt may have had its effect but its outcome was not recorded (a lost worker, a timeout). */
  mayHaveHappened: boolean;
  /**
   * Where the uncertainty was noticed: by a retried attempt, by the workflow when the attempts ran out, or by a local
   * tool's first attempt, which asks `reconcile` every time (a local re-run after a crash looks like a first run).
   */
  noticedBy?: 'retry' | 'workflow' | 'local_first_attempt';
  /** What `reconcile` said (absent for a tool without reconcile, or when nothing was uncertain). */
  reconcile?: ReconcileVerdict;
  /** The tool's explanation of an `unknown`, or the error that made reconcile itself fail. */
  detail?: string;
}

/** A call's effect evidence as the trace keeps it: with how a person settled an uncertain one, and who did. */
export type StepEffect = EffectEvidence & {
  /** approve = ran again, respond = treated as done with the given result, reject = skipped; `timeout`: nobody did. */
  decision?: DecisionOutcome;
};

/** What the `reconcileTool` activity found: the verdict, and for `done` the call's result as an observation. */
export interface ReconcileOutcome {
  verdict: ReconcileVerdict;
  observation?: ToolObservation;
  detail?: string;
}

/** A tool's result as the model will see it, plus what the trace keeps. */
export interface ToolObservation {
  text: string;
  isError: boolean;
  /** For errors: what went wrong, so the error history can say it. */
  errorKind?: 'unknown_tool' | 'invalid_arguments' | 'tool_error' | 'tool_limit';
  data?: unknown;
  truncated: boolean;
  /** Estimated tokens of the full result before truncation. */
  rawTokens?: number;
  /**
   * Attempts the handler took: on a failed call, and on a call that succeeded after failing. Absent from results of
   * older workers and of calls that never reached the handler.
   */
  attempts?: number;
  /** The last failed attempt's error, when a later attempt succeeded: the error history keeps it as recovered. */
  recoveredFrom?: string;
  /**
   * The whole result, for the summariser only (see `RunToolInput.fullTextOver`); the workflow drops it once the
   * summary is made, so no step or trace holds it.
   */
  fullText?: string;
  /** What the runtime knows about the call's effect (see {@link EffectEvidence}); absent from older workers. */
  effect?: StepEffect;
  /** The call stopped to ask the run for this; the run answers it and makes the call again (see {@link CallNeed}). */
  needs?: CallNeed;
}
