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
}
