import type { ConfirmationPolicy } from './approvals';

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
}
