import { ApplicationFailure } from '@temporalio/workflow';
import { ErrorType, errorMessage } from '../shared/errors';
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
 * deterministic: no I/O, no clocks, no randomness. Real work (an external policy check, a lookup) goes in an activity
 * the hook awaits: a hook may return a promise, and the loop waits for it, its activity recorded in the run's history
 * like any other. The hooks apply to the run's subagents too: they start as the same workflow type, so a workflow
 * that passes hooks takes the agent's input (`AgentWorkflowInput`) as its one argument, as `runReActLoop` does.
 */
export interface AgentHooks {
  /** After each step (final answers excepted): return true or a reason to stop with termination reason `custom`. */
  shouldStop?: (step: ReActStep) => boolean | string | Promise<boolean | string>;
  /** Before a call runs (and before it asks a person): refuse it with a message, or let it through. */
  beforeToolCall?: (call: PendingToolCall) => ToolCallVerdict | Promise<ToolCallVerdict>;
}

/** Type of the failure raised when a hook throws: the run fails with the hook's message instead of retrying forever. */
export const HOOK_ERROR = ErrorType.AgentHook;

/**
 * Runs a hook, turning an exception (or a rejected promise) into a clear, non-retryable failure of the run. A hook
 * that answers at once is not awaited: a synchronous hook runs exactly as it did before hooks could be asynchronous.
 */
export function callHook<T>(name: keyof AgentHooks, run: () => T | Promise<T>): T | Promise<T> {
  const failed = (error: unknown): never => {
    throw ApplicationFailure.create({
      type: HOOK_ERROR,
      message: `The ${name} hook threw: ${errorMessage(error)}`,
      nonRetryable: true,
    });
  };
  try {
    const answer = run();
    return answer instanceof Promise ? answer.catch(failed) : answer;
  } catch (error) {
    return failed(error);
  }
}

/** Whether a run has hooks of its own (from a user's workflow), which its subagents then keep. */
export function hasHooks(hooks: AgentHooks): boolean {
  return hooks.shouldStop !== undefined || hooks.beforeToolCall !== undefined;
}
