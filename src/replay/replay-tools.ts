import { Context } from '@temporalio/activity';
import { canonicalJson } from '../shared/canonical';
import { errorObservation } from '../shared/observation';
import type { RunToolInput, ToolObservation } from '../shared/tool-protocol';
import type { RecordedToolCall } from './recording-types';

/** What a replayed tool call needs of the recorded one: its call and what it returned, failed with, or never did. */
export type RecordedToolResult = Pick<RecordedToolCall, 'tool' | 'args' | 'observation' | 'failure' | 'interrupted'>;

/** Heartbeats until the activity is cancelled (a heartbeat is how a remote activity learns it was). */
async function runUntilCancelled(): Promise<never> {
  const context = Context.current();
  for (;;) {
    context.heartbeat();
    await context.sleep(500); // rejects once the activity is cancelled
  }
}

/**
 * The `runTool` activity of a replay: nothing runs, each call gets what the recorded call with the same tool and
 * arguments returned (in recorded order when one was made several times). A call the recording never made gets an
 * error observation saying so: the behaviour has already changed, and replay-check reports how.
 */
export function createReplayRunTool(recorded: readonly RecordedToolResult[]): {
  runTool: (input: RunToolInput) => Promise<ToolObservation>;
  unrecorded: string[];
} {
  const byCall = new Map<string, RecordedToolResult[]>();
  for (const call of recorded) {
    const key = `${call.tool}:${canonicalJson(call.args)}`;
    byCall.set(key, [...(byCall.get(key) ?? []), call]);
  }
  const unrecorded: string[] = [];
  const runTool = (input: RunToolInput): Promise<ToolObservation> => {
    const key = `${input.tool}:${canonicalJson(input.args)}`;
    const queue = byCall.get(key) ?? [];
    // The last recorded result answers repeats beyond the recording (a retried or re-asked call).
    const call = queue.length > 1 ? queue.shift() : queue[0];
    if (!call) {
      unrecorded.push(`${input.tool}(${canonicalJson(input.args)})`);
      return Promise.resolve(
        errorObservation(input.tool, input.args, 'replay-check: the recording has no result for this call'),
      );
    }
    if (call.interrupted) return runUntilCancelled();
    if (call.observation) return Promise.resolve(call.observation);
    return Promise.reject(new Error(call.failure ?? 'the recorded call failed'));
  };
  return { runTool, unrecorded };
}
