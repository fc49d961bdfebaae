import { AsyncLocalStorage } from 'node:async_hooks';
import { DurableAgentError } from '../../shared/errors';
import type { CallAnswer, CallNeed } from '../../shared/tool-protocol';

/** What the run has answered of a running call's requests back to it (by request key). */
export interface CallExchange {
  answers: Readonly<Record<string, CallAnswer>>;
}

/**
 * The exchange of the call a handler runs for: `runTool` sets it around the handler, and a handler whose server asks
 * the run things while it runs (an MCP server's sampling or elicitation request) reads the answers it already has from here. Kept
 * out of `ToolContext`: it is the runtime's plumbing between two of its own parts, not something a tool author uses.
 */
export const callExchange = new AsyncLocalStorage<CallExchange>();

/**
 * Thrown by a handler that stopped its call to ask the run for something it has no answer to yet: `runTool` turns it
 * into an observation that `needs` it, the workflow answers durably, and the call is made again with the answer.
 */
export class CallNeedsRunError extends DurableAgentError {
  override readonly name = 'CallNeedsRunError';

  constructor(readonly need: CallNeed) {
    super(`the call stopped to ask the run: ${need.kind} request of MCP server ${need.server}`);
  }
}
