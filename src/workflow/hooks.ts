import { ApplicationFailure } from '@temporalio/workflow';
import { ErrorType } from '../shared/errors';
import type { ReActStep } from '../shared/types';

/** A tool call about to run, as `beforeToolCall` sees it. */
export interface PendingToolCall {
  tool: string;
  args: unknown;
  callId: string;
}

/** What `beforeToolCall` decides: run it, or refuse with a message the model sees as the observation. */
export type ToolCallVerdict = { allow: true } | { allow: false; message: string };

/**
 * Hooks a user's own workflow passes to {@link runReActLoop}. They run inside the workflow, so they must be
 * deterministic: no I/O, no clocks, no randomness (use an activity for anything else).
 */
export interface AgentHooks {
  /** After each step (final answers excepted): return true or a reason to stop with termination reason `custom`. */
  shouldStop?: (step: ReActStep) => boolean | string;
  /** Before a call runs (and before it asks a person): refuse it with a message, or let it through. */
  beforeToolCall?: (call: PendingToolCall) => ToolCallVerdict;
}

/** Type of the failure raised when a hook throws: the run fails with the hook's message instead of retrying forever. */
export const HOOK_ERROR = ErrorType.AgentHook;

/** Runs a hook, turning an exception into a clear, non-retryable failure of the run. */
export function callHook<T>(name: keyof AgentHooks, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw ApplicationFailure.create({
      type: HOOK_ERROR,
      message: `The ${name} hook threw: ${error instanceof Error ? error.message : String(error)}`,
      nonRetryable: true,
    });
  }
}
