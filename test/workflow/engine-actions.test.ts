import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { streamRunEvents } from '../../src/inbox/event-stream';
import { modelDeltaSignal } from '../../src/shared/messages';
import { AgentStatusKey } from '../../src/shared/search-attributes';
import { chainEngineActions, engineActionsTotal, type EngineActions } from '../../src/replay';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { DELTA_BURST, DELTA_SIGNALS_PER_SECOND } from '../../src/worker/activities/streaming';
import { countingClient, nullResponse } from '../support/followers';
import { useHarness } from '../support/harness';

const harness = useHarness();

/** The billed actions every run of a chain recorded, counted from the server's histories. */
const actionsOf = (workflowId: string): Promise<EngineActions> => chainEngineActions(harness.client, workflowId);

/** A short random suffix for names of this file's own. */
const workflowSuffix = (): string => Math.random().toString(36).slice(2, 10);

/** `steps` calculator calls, then the answer. */
function steps(count: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: count }, (_, index) => ({
      thought: `Step ${index + 1}: the calculator gives the next figure exactly.`,
      toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
    })),
    { answer: 'Done.' },
  ];
}

describe('engine actions of a run', () => {
  it('a default 20-step run nobody follows: its start, its model calls, one start-time batch and the end status', async () => {
    // Both runs talk to one model, as a worker's runs do (the harness gives each run a model of its own): each
    // reply follows from the tool results in the request, so every run gets the same 21 turns.
    const model = `steady-${workflowSuffix()}`;
    const turns = steps(20);
    harness.model.script(model, (body) => turns[body.messages.filter((message) => message.role === 'tool').length]!);
    /** A quiet 20-step run: its trace and the actions its history bills. */
    const quietRun = async () => {
      const run = await harness.agents.start('test query', { model, limits: { maxIterations: 21 } });
      const { trace, terminationReason } = await run.result();
      expect(terminationReason).toBe('success');
      expect(trace.totalIterations).toBe(21);
      const actions = await actionsOf(run.workflowId);
      // The run's own ledger counted the same, kind by kind, as its history bills.
      expect(trace.cost?.engineActions).toEqual(actions);
      const described = await harness.client.workflow.getHandle(run.workflowId).describe();
      expect(described.status.name).toBe('COMPLETED');
      expect(described.typedSearchAttributes.get(AgentStatusKey)).toBe('Completed');
      return actions;
    };
    // This file's worker has made no model call yet: the first call is an activity, like the other 20. Above the
    // floor (a start and one action per model call) are the config check and tool lookup (one local-activity batch)
    // and the upsert that says Completed (AgentStatus must not keep saying Running).
    const cold = await quietRun();
    expect(cold).toMatchObject({
      workflowStarts: 1,
      activities: 21,
      localActivityBatches: 1,
      searchAttributeUpserts: 1,
    });
    expect(engineActionsTotal(cold)).toBe(24);
    // Now the worker has seen the model answer quickly: the next run's first call joins the start's batch.
    const warm = await quietRun();
    expect(warm).toMatchObject({
      workflowStarts: 1,
      activities: 20,
      localActivityBatches: 1,
      searchAttributeUpserts: 1,
    });
    expect(engineActionsTotal(warm)).toBe(23);
    expect(engineActionsTotal(warm) / 21).toBeLessThanOrEqual(1.1);
  });

  it('a streamed run sends its deltas within the documented rate: a burst, then one signal a second', async () => {
    // Four calls whose text takes 1.5 s each to arrive: a batch every 100 ms sent about 15 signals a call.
    const slow = { streamChunks: 30, chunkDelayMs: 50 };
    const run = await harness.start(
      [
        ...steps(3)
          .slice(0, 3)
          .map((turn) => ({ ...turn, ...slow })),
        { answer: 'Done.', ...slow },
      ],
      'test query',
      { modelSettings: { stream: true } },
    );
    const received = [];
    for await (const event of run.events()) received.push(event);
    expect((await run.result()).terminationReason).toBe('success');
    // Every call's text still reaches the subscriber whole.
    const deltas = received.flatMap((event) => (event.type === 'thought_delta' ? [event.text] : []));
    expect(deltas.join('')).toContain('Step 3: the calculator gives the next figure exactly.');
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    const events = history.events ?? [];
    const seconds = (event: temporal.api.history.v1.IHistoryEvent | undefined) =>
      Number(event?.eventTime?.seconds ?? 0) + Number(event?.eventTime?.nanos ?? 0) / 1e9;
    const lasted = seconds(events.at(-1)) - seconds(events[0]);
    // The deltas' signals (the follower's one `publishEvents` is following's, counted below).
    const signals = events.filter(
      (event) => event.workflowExecutionSignaledEventAttributes?.signalName === modelDeltaSignal.name,
    ).length;
    expect(signals).toBeGreaterThan(3);
    // The rate, with the run's own recorded times: the burst, one a second, and the last call's final batch.
    expect(signals).toBeLessThanOrEqual(DELTA_BURST + Math.ceil(lasted * DELTA_SIGNALS_PER_SECOND) + 1);
  });

  it('following a 20-step run live adds at most 0.25 actions an iteration, for one subscriber or three', async () => {
    // What the same run costs with nobody following, on this worker (its runs' models are new to it: 24, above).
    const quiet = await harness.start(steps(20), 'test query', { limits: { maxIterations: 21 } });
    expect((await quiet.result()).terminationReason).toBe('success');
    const quietActions = engineActionsTotal(await actionsOf(quiet.workflowId));
    for (const subscribers of [1, 3]) {
      const { client, agents, sent } = countingClient(harness.client, harness.agents.taskQueue);
      const run = await harness.start(steps(20), 'test query', { limits: { maxIterations: 21 } });
      // What a user has open: the CLI's printer (`run.events()`), a library caller, the inbox's page.
      const seen: string[][] = Array.from({ length: subscribers }, () => []);
      const followers = [
        (async () => {
          for await (const event of agents.handle(run.workflowId).events()) seen[0]!.push(event.type);
        })(),
        ...(subscribers > 1
          ? [
              (async () => {
                for await (const event of agents.handle(run.workflowId).events()) seen[1]!.push(event.type);
              })(),
              streamRunEvents(client, run.workflowId, 0, nullResponse()),
            ]
          : []),
      ];
      await Promise.all(followers);
      expect((await run.result()).terminationReason).toBe('success');
      // Every event reached the subscribers, from the start to the end.
      expect(seen[0]!.at(0)).toBe('run_started');
      expect(seen[0]!.filter((type) => type === 'tool_finished')).toHaveLength(20);
      expect(seen[0]!.at(-1)).toBe('terminated');
      if (subscribers > 1) expect(seen[1]).toEqual(seen[0]);
      // The quiet run's actions, plus what following added in history and in queries and updates.
      const added =
        engineActionsTotal(await actionsOf(run.workflowId)) - quietActions + sent().queries + sent().updates;
      expect(added, `${subscribers} subscriber(s)`).toBeLessThanOrEqual(0.25 * 21);
    }
  });
});
