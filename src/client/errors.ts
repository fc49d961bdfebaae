import type { RefusalReason } from '../shared/approvals';
import type { ReActTrace } from '../shared/types';
import { DurableAgentError } from '../shared/errors';

/** Refused before a run starts: the message lists every bad field on one line. */
export class InvalidConfigError extends DurableAgentError {
  override readonly name = 'InvalidConfigError';
}

/** A run that failed instead of finishing (e.g. the model endpoint rejected the key). `type` is an ErrorType name. */
export class AgentRunError extends DurableAgentError {
  override readonly name = 'AgentRunError';
  constructor(
    message: string,
    readonly workflowId: string,
    readonly type: string | undefined,
    /** The trace up to the failure, when the workflow attached one. */
    readonly trace: ReActTrace | undefined,
  ) {
    super(message);
  }
}

/** Raised when the cluster lacks the agent's search attributes; the message has the commands that add them. */
export class SearchAttributesMissingError extends DurableAgentError {
  override readonly name = 'SearchAttributesMissingError';
}

/** A decision the run refused (unknown or already-decided call, stale argsHash, invalid edit); nothing changed. */
export class DecisionRefusedError extends DurableAgentError {
  override readonly name = 'DecisionRefusedError';
  constructor(
    message: string,
    /** Why, for code to branch on; `undefined` when a run of an older version refused without saying. */
    readonly reason: RefusalReason | undefined,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * The Temporal server could not be reached at `address` (down, or the address is wrong). The SDK's own error says
 * only "Failed to connect before the deadline"; this one names the address and what to do. Branch on `error.name`.
 */
export class ServerUnreachableError extends DurableAgentError {
  override readonly name = 'ServerUnreachableError';
}

/** A follow-up message the run refused (it is no conversation, it has ended, the text is empty); nothing is recorded. */
export class MessageRefusedError extends DurableAgentError {
  override readonly name = 'MessageRefusedError';
}

/**
 * `start(…, { ifRunning: 'attach' })` found a run with that ID running, but one that another request started (another
 * query, config, workflow type or task queue): its approvals and limits are not the ones asked for, so no handle is
 * returned. Nothing was started or changed.
 */
export class AttachRefusedError extends DurableAgentError {
  override readonly name = 'AttachRefusedError';
  constructor(
    message: string,
    readonly workflowId: string,
    /** What differs: `query`, `workflowType`, `taskQueue`, `seed`, or `config.<field>` for each differing field. */
    readonly differences: string[],
  ) {
    super(message);
  }
}

/** An error's message and its causes', joined: to recognise a server's refusal whatever the SDK wrapped it in. */
export function causeMessages(error: unknown): string {
  const parts: string[] = [];
  for (let cause = error; cause instanceof Error; cause = cause.cause) parts.push(cause.message);
  return parts.join(' | ');
}

/**
 * What to tell an operator whose Temporal server cannot be reached, or undefined when `error` is something else. The
 * SDKs report it as a Rust transport dump (`tonic::transport::Error(Transport, ConnectError(…))`, the worker's native
 * connection) or "Failed to connect before the deadline" (the client): neither names the address or what to do.
 */
export function unreachableServerMessage(error: unknown, address: string): string | undefined {
  const text = causeMessages(error);
  if (!/tonic::transport|ConnectError|Failed to connect before the deadline|dns error/i.test(text)) return undefined;
  // The OS's own words when the dump carries them ("Connection refused"), else the SDK's.
  const why =
    /message: "([^"]+)"/.exec(text)?.[1] ??
    (/dns error|failed to lookup/i.test(text) ? 'the host name does not resolve' : 'no answer before the deadline');
  return (
    `cannot reach the Temporal server at ${address} (TEMPORAL_ADDRESS): ${why}. ` +
    'Start one (npx durable-react-agent server), or set TEMPORAL_ADDRESS to where it listens.'
  );
}
