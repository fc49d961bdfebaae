import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { countEngineActions } from '../../src/replay';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import type { ReActResult } from '../../src/shared/types';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { defineTool } from '../../src/worker/tools/define-tool';
import { useHarness } from '../support/harness';

/*
 * Local activities hold their workflow task open; past 80% of the task timeout the SDK heartbeats it (completes it
 * and the server starts another), and Temporal Cloud bills each such task. A run whose model calls and tools are all
 * local has nothing else in its history, so every task it completed is billed: the ledger and the history's count
 * must both say so. A 2 s task timeout makes the heartbeats come every 1.6 s.
 */

const nap = defineTool({
  name: 'nap',
  description: 'Waits the given milliseconds, in the worker that holds the run.',
  schema: z.object({ ms: z.number().int().min(0).max(10_000) }),
  local: true,
  handler: async ({ ms }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return `slept ${ms} ms`;
  },
});

const harness = useHarness({ tools: [nap], modelCalls: { local: true } });
const thought = 'The task asks for a pause, so I take one.';

/** Runs `turns` with a 2 s workflow task timeout and returns the result and its history. */
async function runWithShortTasks(turns: ScriptedTurn[]) {
  const model = `billing-${randomUUID()}`;
  harness.model.script(model, turns);
  const handle = await harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
    taskQueue: harness.agents.taskQueue,
    workflowId: `local-billing-${randomUUID()}`,
    args: [{ query: 'Take a pause, then answer.', config: { model } }],
    workflowTaskTimeout: '2s',
  });
  const result = (await handle.result()) as ReActResult;
  expect(result.terminationReason).toBe('success');
  const history = await handle.fetchHistory();
  const completed = (history.events ?? []).filter(
    (event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  ).length;
  return { result, actions: countEngineActions(history), completed };
}

describe('local activities past the task heartbeat point', () => {
  it('a local model call of 4 s: its task and each heartbeat are billed, in the ledger as in the history', async () => {
    const { result, actions, completed } = await runWithShortTasks([{ answer: 'Done.', delayMs: 4_000 }]);
    // The call held the start task past two heartbeats (1.6 s, 3.2 s): at least three tasks.
    expect(completed).toBeGreaterThanOrEqual(3);
    expect(actions.localActivityBatches).toBe(completed);
    expect(result.trace.cost?.engineActions).toEqual(actions);
  }, 60_000);

  it('two local tools side by side, of 2.5 s and 4 s: each task counted once, not once per tool', async () => {
    const { result, actions, completed } = await runWithShortTasks([
      {
        thought,
        toolCalls: [
          { name: 'nap', args: { ms: 2_500 } },
          { name: 'nap', args: { ms: 4_000 } },
        ],
      },
      { answer: 'Rested.' },
    ]);
    expect(result.trace.steps.filter((step) => step.action.type === 'tool_call')).toHaveLength(2);
    expect(completed).toBeGreaterThanOrEqual(3);
    expect(actions.localActivityBatches).toBe(completed);
    expect(result.trace.cost?.engineActions).toEqual(actions);
  }, 60_000);
});
