import os from 'node:os';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AgentConfig } from '../../src/shared/agent-config';
import { AgentRunError } from '../../src/client/errors';
import { countEngineActions } from '../../src/replay';
import type { ReActResult, ReActStep } from '../../src/shared/types';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import type { temporal } from '@temporalio/proto';
import { checkRecordings, loadSources } from '../../src/replay/replay-check';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { calculatorTool } from '../../src/worker/tools/builtin/calculator';
import { LATENCY_SAMPLES } from '../../src/worker/model-latency';
import { useHarness } from '../support/harness';

/*
 * A new run's first model call opens in the workflow task that checks its config, as a local activity, once the
 * worker has seen its model answer quickly: one engine action for both instead of two (issue 36, P8).
 */

const harness = useHarness();

let connection: NativeConnection | undefined;
beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection?.close();
});

const thought = 'The calculator gives the figure exactly, so I use it.';

/** `count` calculator calls, then the answer. */
function steps(count: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: count }, (_, index) => ({
      thought,
      toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
    })),
    { answer: 'Done.' },
  ];
}

let models = 0;

/**
 * A model of the worker's own, as a deployment has one, already seen answering quickly: a warm-up run made
 * {@link LATENCY_SAMPLES} calls to it. Each reply follows from the tool results in the request, so every run that
 * talks to it gets `turns` from the start.
 */
async function warmModel(turns: readonly ScriptedTurn[], on: Pick<typeof harness, 'model' | 'agents'> = harness) {
  const model = `steady-${process.pid}-${(models += 1)}`;
  const warmUp = steps(LATENCY_SAMPLES - 1);
  on.model.script(model, (body) => {
    const results = body.messages.filter((message) => message.role === 'tool').length;
    const warming = JSON.stringify(body.messages).includes('warm up');
    return (warming ? warmUp : turns)[results]!;
  });
  const run = await on.agents.start('warm up', { model });
  expect((await run.result()).terminationReason).toBe('success');
  return model;
}

/** The calculator's results in a run's steps. */
const results = (steps: readonly ReActStep[]): unknown[] =>
  steps.flatMap((step) =>
    step.action.type === 'tool_call' ? [(JSON.parse(step.observation ?? 'null') as { result: unknown }).result] : [],
  );

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity types a run scheduled, in order (local activities are markers, not scheduled activities). */
const scheduled = (events: HistoryEvent[]): string[] =>
  events.flatMap((event) => {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    return name ? [name] : [];
  });

/** Workflow tasks that recorded local activities, by how many each recorded (a task's commands follow it). */
function markerTasks(events: HistoryEvent[]): number[] {
  const tasks: number[] = [];
  let markers: number | undefined;
  for (const event of events) {
    if (event.workflowTaskCompletedEventAttributes) {
      if (markers) tasks.push(markers);
      markers = 0;
    }
    const local = event.markerRecordedEventAttributes?.markerName === 'core_local_activity';
    if (local && markers !== undefined) markers += 1;
  }
  if (markers) tasks.push(markers);
  return tasks;
}

const historyOf = (workflowId: string) => harness.client.workflow.getHandle(workflowId).fetchHistory();

async function start(model: string, query: string, config: AgentConfig = {}) {
  return harness.agents.start(query, { ...config, model });
}

describe('a new run opens with a local model call on a worker that knows its model is quick', () => {
  it('makes the first call in the start task, one batch with the config check, and replays', async () => {
    const model = await warmModel(steps(2));
    const run = await start(model, 'What is 0 + 1, then 1 + 1?');
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Done.');
    expect(results(result.trace.steps)).toEqual([1, 2]);
    const history = await historyOf(run.workflowId);
    const events = history.events ?? [];
    // Three model calls: the first is a marker in the start's task beside prepareRun's, the other two activities.
    expect(scheduled(events)).toEqual(['callModel', 'callModel']);
    expect(markerTasks(events)[0]).toBe(2);
    // The ledger bills what the history shows: one local-activity batch for the check and the first call.
    const actions = countEngineActions(history);
    expect(actions).toMatchObject({ workflowStarts: 1, activities: 2, localActivityBatches: 1 });
    expect(result.trace.cost?.engineActions).toEqual(actions);
    // The run replays on the code that made it, and replay-check serves it from its recording unchanged.
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history);
    const sources = await loadSources([run.workflowId], { client: harness.client, baselineDir: os.tmpdir() });
    const [report] = await checkRecordings(sources, {
      client: harness.client,
      connection: connection!,
      registry: new ToolRegistry([calculatorTool]),
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    expect([report?.status, report?.changes, report?.notes]).toEqual(['unchanged', [], []]);
  }, 60_000);

  it('a first call that needs approval waits for it, and a follower sees every event from run_started', async () => {
    const model = await warmModel(steps(1));
    const run = await start(model, 'What is 0 + 1?', { approvals: { require: ['calculator'] } });
    const seen: string[] = [];
    for await (const event of run.events()) {
      seen.push(event.type);
      if (event.type === 'approval_pending') await harness.agents.handle(run.workflowId).approve('c1-1');
    }
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(results(result.trace.steps)).toEqual([1]);
    expect(result.trace.steps[0]).toMatchObject({ decision: { kind: 'approve' } });
    expect(seen.at(0)).toBe('run_started');
    expect(seen).toContain('approval_pending');
    expect(seen.at(-1)).toBe('terminated');
    expect(markerTasks((await historyOf(run.workflowId)).events ?? [])[0]).toBe(2);
  });

  it('a run that streams keeps its first call an activity: its deltas are signals', async () => {
    const model = await warmModel(steps(1));
    const run = await start(model, 'What is 0 + 1?', { modelSettings: { stream: true } });
    expect((await run.result()).terminationReason).toBe('success');
    const events = (await historyOf(run.workflowId)).events ?? [];
    expect(scheduled(events)).toEqual(['callModel', 'callModel']);
  });

  it('an opening call slower than its slice of the start task is made again as an activity, and counted as waste', async () => {
    const model = await warmModel(steps(1));
    const slow = steps(1).map((turn, index) => (index === 0 ? { ...turn, delayMs: 3_500 } : turn));
    harness.model.script(model, (body) => slow[body.messages.filter((message) => message.role === 'tool').length]!);
    // A 4 s task timeout: the opening call must be done 2.4 s (60%) into the task, well before the SDK would heartbeat
    // it (3.2 s).
    const handle = await harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
      taskQueue: harness.agents.taskQueue,
      workflowId: `opening-slice-${(models += 1)}-${process.pid}`,
      args: [{ query: 'What is 0 + 1?', config: { model } }],
      workflowTaskTimeout: '4s',
    });
    const result = (await handle.result()) as ReActResult;
    expect(result.terminationReason).toBe('success');
    expect(results(result.trace.steps)).toEqual([1]);
    const history = await handle.fetchHistory();
    const events = history.events ?? [];
    // The first call gave up in the start task (its marker beside prepareRun's) and ran again as an activity.
    expect(markerTasks(events)[0]).toBe(2);
    expect(scheduled(events)).toEqual(['callModel', 'callModel']);
    // No heartbeat: the start task completed before 3.2 s, so the batch is one action.
    const actions = countEngineActions(history);
    expect(actions.localActivityBatches).toBe(1);
    expect(result.trace.cost?.engineActions).toEqual(actions);
    expect(result.trace.cost?.wasted).toMatchObject({ retriedModelCalls: 1, modelRetries: 1 });
    expect(harness.model.requests(model)).toHaveLength(3);
  }, 60_000);

  it("an opening call the model refuses is made again as an activity, with the run's retries", async () => {
    const model = await warmModel(steps(1));
    const turns = steps(1);
    harness.model.script(model, (body, index) =>
      index === 0
        ? { status: 500, errorMessage: 'upstream overloaded' }
        : turns[body.messages.filter((message) => message.role === 'tool').length]!,
    );
    const run = await start(model, 'What is 0 + 1?');
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(results(result.trace.steps)).toEqual([1]);
    const events = (await historyOf(run.workflowId)).events ?? [];
    expect(scheduled(events)).toEqual(['callModel', 'callModel']);
    expect(result.trace.cost?.wasted).toMatchObject({ retriedModelCalls: 1 });
  });

  it('an opening call refused for good (a bad key) fails the run at once, without asking again', async () => {
    const model = await warmModel(steps(1));
    harness.model.script(model, [{ status: 401, errorMessage: 'Incorrect API key provided' }]);
    const run = await start(model, 'What is 0 + 1?');
    const error = (await run.result().catch((caught: unknown) => caught)) as AgentRunError;
    expect(error).toBeInstanceOf(AgentRunError);
    expect(error.type).toBe('ModelAuthenticationError');
    expect(error.trace?.errorHistory.at(-1)?.kind).toBe('model_error');
    expect(harness.model.requests(model)).toHaveLength(1);
    expect(scheduled((await historyOf(run.workflowId)).events ?? [])).toEqual([]);
  });

  it('a deploy while the first call runs locally: the old worker finishes it, the new one goes on', async () => {
    const model = await warmModel(steps(1));
    const slow = steps(1).map((turn, index) => (index === 0 ? { ...turn, delayMs: 1_500 } : turn));
    harness.model.script(model, (body) => slow[body.messages.filter((message) => message.role === 'tool').length]!);
    const run = await start(model, 'What is 0 + 1?');
    // Stop the worker once the call is with the model, so the old worker holds it when it stops.
    for (let wait = 0; harness.model.requests(model).length === 0 && wait < 200; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(harness.model.requests(model)).toHaveLength(1);
    await harness.restartWorker();
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(results(result.trace.steps)).toEqual([1]);
    const history = await historyOf(run.workflowId);
    // The stopping worker let the call and its task finish: the call is recorded in the start's task (beside
    // prepareRun's, and the calculator's when it did not run ahead), and no call was made twice.
    expect(markerTasks(history.events ?? [])[0]).toBeGreaterThanOrEqual(2);
    expect(scheduled(history.events ?? [])).toEqual(['callModel']);
    expect(harness.model.requests(model)).toHaveLength(2);
    expect(result.trace.cost?.engineActions).toEqual(countEngineActions(history));
  }, 60_000);
});

describe('a worker with modelCalls.openLocally false (WORKER_OPEN_LOCALLY=false)', () => {
  const never = useHarness({ modelCalls: { openLocally: false } });

  it('keeps every call an activity, however quick its model', async () => {
    const model = await warmModel(steps(1), never);
    const run = await never.agents.start('What is 0 + 1?', { model });
    expect((await run.result()).terminationReason).toBe('success');
    const events = (await never.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    expect(scheduled(events)).toEqual(['callModel', 'callModel']);
    expect(markerTasks(events)[0]).toBe(1);
  });
});
