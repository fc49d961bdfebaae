import type { z } from 'zod';
import type { ConfirmationPolicy } from '../../shared/approvals';
import type { RemoteToolPlacement } from '../../shared/tool-protocol';
import { DurableAgentError } from '../../shared/errors';
import { CLARIFICATION_TOOL, DELEGATE_TOOL, FINAL_ANSWER_TOOL } from '../../shared/protocol/builtin-actions';
import { withLinearConfirmation } from './confirmation-patterns';
import { checkRetryableErrors, type RetryableErrorMatcher } from './retryable-errors';

/**
 * Thrown by a handler to refuse a call for a reason retrying cannot fix (a path outside the root, a bad pattern):
 * never retried, and recorded as invalid arguments rather than a tool failure.
 */
export class ToolInputError extends DurableAgentError {
  override readonly name: string = 'ToolInputError';
}

/** Retry policy for one tool's activity; Temporal applies it, the handler never retries itself. */
export interface ToolRetryPolicy {
  /** Total attempts including the first (1 = no retry). */
  maximumAttempts: number;
  /** Delay before the first retry, e.g. '1s'. */
  initialInterval?: string;
  /** Multiplier applied to the delay after each retry. */
  backoffCoefficient?: number;
}

/** What a handler receives besides its validated arguments. */
export interface ToolContext {
  /**
   * The run chain's first run ID + call ID (`<firstRunId>:c3-1`), for de-duplicating side effects: stable across
   * retries, worker restarts and continue-as-new, and different for a later run that reuses the workflow ID.
   */
  idempotencyKey: string;
  /** Aborted when the run is cancelled or timed out, or the activity is otherwise cancelled. */
  signal: AbortSignal;
  /**
   * Says how far a long call has got (an MCP server's progress notifications arrive here): sent with the activity's
   * heartbeats, so the Temporal UI shows the latest as the pending activity's heartbeat details (a tool running as a
   * local activity, or ahead inside a model call, has no heartbeat), and to the run as `tool_progress` events, the
   * first at once and then the latest every 5 s at most. Optional, so a test can call a handler with a context of its
   * own.
   */
  progress?(update: ToolProgress): void;
}

/**
 * A long call's progress: `progress` of `total` (when known), and a line saying what it is doing. A report with only
 * a `message` is such a line alone (an MCP server's log notifications during the call arrive so).
 */
export interface ToolProgress {
  progress?: number;
  total?: number;
  message?: string;
}

/** A handler may return text or any JSON value; JSON is kept as structured data beside the text. */
export type ToolOutput = string | number | boolean | null | object;

/**
 * What a tool's `reconcile` found out about a call whose outcome nobody saw: its effect happened (with the result the
 * call would have returned), it did not, or the provider cannot tell (a person then decides).
 */
export type ReconcileResult =
  { status: 'done'; result: ToolOutput } | { status: 'not_done' } | { status: 'unknown'; detail?: string };

/** What `reconcile` receives besides the call's key and arguments. */
export interface ReconcileContext {
  /** Aborted when the run is cancelled or the lookup's activity times out. */
  signal: AbortSignal;
}

/** The category of a tool that names none. */
export const DEFAULT_TOOL_CATEGORY = 'custom';

/** A tool the agent can call: a zod schema for its arguments and a handler that does the work. */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: Schema;
  /** Free-form grouping, e.g. 'math', 'text', 'files', 'search' (default `custom`). */
  category?: string;
  /** JSON Schema of the arguments when it is not derived from `schema` (an MCP tool's own schema). */
  parameters?: Record<string, unknown>;
  /** Example argument objects, shown to models in text mode and in docs. */
  examples?: ReadonlyArray<z.input<Schema>>;
  handler: (args: z.output<Schema>, context: ToolContext) => Promise<ToolOutput> | ToolOutput;
  /**
   * Finds out whether a call's effect happened, for a provider that has no idempotency keys of its own (look the
   * write up by a reference the handler passed, e.g. the key as a payment's metadata). Asked before a call runs
   * again when an earlier attempt may have had its effect unseen (a worker lost mid-call, a timeout after start):
   * `done` takes its result without running the handler, `not_done` runs it, `unknown` asks a person. A tool with
   * `reconcile` runs as a remote activity unless it says `local: true`; a local one is reconciled before every first
   * attempt too, since a local activity re-run after its worker died starts again at attempt 1 with nothing recorded.
   */
  reconcile?: (
    idempotencyKey: string,
    args: z.output<Schema>,
    context: ReconcileContext,
  ) => Promise<ReconcileResult> | ReconcileResult;
  retry?: ToolRetryPolicy;
  /**
   * The errors another attempt could fix (a timeout, a rate limit), as error classes, error names or codes, or RegExps
   * of the message. When set, any other error is permanent: one failed attempt, whatever `retry` allows, so a
   * validation error is not retried with backoff. Without it, every error is retried while attempts remain.
   * {@link ToolInputError} is never retried.
   */
  retryableErrors?: readonly RetryableErrorMatcher[];
  /** Start-to-close timeout of one attempt, e.g. '30s'. */
  timeout?: string;
  /** Whether a person must confirm a call before it runs (default 'never'). */
  confirm?: ConfirmationPolicy;
  /**
   * Run as a Temporal local activity: inside the worker that holds the agent's workflow task, with no task-queue round
   * trip and no workflow task of its own, which makes a step one server round trip instead of two. The default is
   * true when `timeout` is at most 30 s (the default timeout's), false above. `false` suits tools that run long: a
   * remote activity heartbeats, shows as pending while it runs, and its result is recorded the moment it ends, where
   * a local one's is recorded with the workflow task a moment later (a worker dying in between runs the call again,
   * with the same `idempotencyKey`).
   */
  local?: boolean;
  /**
   * The tool only reads: calling it changes nothing anywhere. A read-only tool that runs locally and never asks for
   * confirmation runs ahead: the worker starts it inside the model call that asked for it, and the workflow takes its
   * result, recorded with the model's reply, only for a call it admits (a step then costs one activity, not two). A
   * result the workflow does not admit is dropped; a failed one is run again as the tool's own activity, with its
   * retry policy. Never set it on a tool with side effects: those must wait for the workflow's admission.
   */
  readOnly?: boolean;
  /**
   * Runs in another worker, as activity `activityType` on `taskQueue` (the worker's `remoteTools`): the workflow
   * schedules it there with `{ tool, args, callId, idempotencyKey }`, and this worker's handler is not used.
   */
  remote?: RemoteToolPlacement;
}

/** A tool definition whose argument type has been erased, as the registry stores it. */
export type AnyToolDefinition = ToolDefinition<z.ZodType>;

const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** The loop's built-in actions: it takes a call of one of these names itself, so a tool so named would never run. */
const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set([FINAL_ANSWER_TOOL, CLARIFICATION_TOOL, DELEGATE_TOOL]);

/**
 * Throws a TypeError naming the first thing wrong with a tool definition that would otherwise fail its runs or calls
 * rather than the start: a name models cannot call or the loop keeps for itself, no description, no zod `schema`
 * (the worker checks every call's arguments with it), no `handler`. Plain objects never pass through defineTool (a
 * tools module's entries, a registry given objects), so the registry runs this on every tool it takes.
 */
export function checkToolDefinition(definition: unknown): asserts definition is AnyToolDefinition {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    const got = definition === null ? 'null' : Array.isArray(definition) ? 'an array' : typeof definition;
    throw new TypeError(`A tool is an object (defineTool({ name, description, schema, handler })), got ${got}`);
  }
  const tool = definition as { [Key in keyof AnyToolDefinition]?: unknown };
  // JSON.stringify keeps a name's control characters (an ESC, a newline) out of the one-line error.
  const name = typeof tool.name === 'string' ? tool.name : undefined;
  if (name === undefined || !TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `Tool name ${name === undefined ? `missing (got ${typeof tool.name})` : JSON.stringify(name)} is invalid: ` +
        "use 1-64 letters, digits, '_' or '-', starting with a letter",
    );
  }
  if (RESERVED_TOOL_NAMES.has(name)) {
    throw new TypeError(`Tool name "${name}" is reserved: the agent's built-in ${name} action takes those calls`);
  }
  if (typeof tool.description !== 'string' || tool.description.trim() === '') {
    throw new TypeError(`Tool "${name}" needs a description: models choose tools by it`);
  }
  if (typeof (tool.schema as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new TypeError(
      `Tool "${name}" needs a zod \`schema\`: every call's arguments are checked with it` +
        (tool.parameters === undefined ? '' : ' (`parameters` only shows the model a JSON Schema)'),
    );
  }
  if (typeof tool.handler !== 'function') throw new TypeError(`Tool "${name}" needs a \`handler\` function`);
  if (tool.retryableErrors !== undefined) {
    if (!Array.isArray(tool.retryableErrors)) {
      throw new TypeError(`Tool "${name}": retryableErrors is a list of error classes, error names or RegExps`);
    }
    checkRetryableErrors(name, tool.retryableErrors);
  }
}

/** Declares a tool; the identity function plus checks that make a bad definition fail at start-up, not mid-run. */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): ToolDefinition<Schema> {
  checkToolDefinition(definition);
  // The workflow runs confirmation patterns against the model's arguments: refuse one that could fail or hang it.
  return withLinearConfirmation(definition);
}
