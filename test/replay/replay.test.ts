import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker } from '@temporalio/worker';
import { describe, expect, inject, it } from 'vitest';
import { loadHistories } from '../support/histories';

/** Replays every committed history against a workflow bundle; returns the names that failed and why. */
async function replayAll(
  workflowBundle: { codePath: string } | { code: string },
): Promise<Array<{ name: string; error: string }>> {
  const histories = loadHistories();
  const failures: Array<{ name: string; error: string }> = [];
  // Re-recorded scenarios keep their workflow IDs, so one ID can name a history in each recording.
  const names = new Map<string, string[]>();
  for (const { name, workflowId } of histories) names.set(workflowId, [...(names.get(workflowId) ?? []), name]);
  const replays = Worker.runReplayHistories(
    { workflowBundle },
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  );
  for await (const result of replays) {
    if (result.error)
      failures.push({
        name: names.get(result.workflowId)?.join(' or ') ?? result.workflowId,
        error: result.error.message,
      });
  }
  return failures;
}

describe('replay safety', () => {
  it('every committed history replays against the current workflow code', async () => {
    const histories = loadHistories();
    // success, each decision kind, parallel calls decided out of order, a budget raise, clarification,
    // continue-as-new (3 runs), a chain followed live by an event consumer (its long-poll updates in history),
    // subagent (parent + child), cancellation, timeout, critic and summary, and a model that replies like real
    // servers: see scripts/record-histories.ts.
    expect(histories.length).toBeGreaterThanOrEqual(21);
    expect(histories.map(({ name }) => name)).toContain('parallel-decisions');
    expect(histories.map(({ name }) => name)).toContain('streamed-handover');
    expect(await replayAll({ codePath: inject('workflowBundlePath') })).toEqual([]);
  }, 120_000);

  it('a change that breaks determinism is caught', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.resolve(__dirname, 'fixtures/changed-workflow.ts'),
      logger: new DefaultLogger('WARN'),
    });
    const failures = await replayAll({ code });
    expect(failures.length).toBe(loadHistories().length);
    expect(failures[0]?.error).toMatch(/[Nn]ondetermin/);
  }, 120_000);
});
