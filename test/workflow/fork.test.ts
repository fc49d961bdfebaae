import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ForkRefusedError } from '../../src/client';
import type { RecordedRequest, ScriptedTurn } from '../../src/testing/scripted-model';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import { useHarness } from '../support/harness';
import { waitForPending } from '../support/pending';
import { firstRunIdOf, recordedEffects } from '../support/test-tools';

const harness = useHarness();
const effect = (label: string): ScriptedTurn => ({
  thought: `The ${label} effect must be recorded before I can answer.`,
  toolCalls: [{ name: 'record_effect', args: { label } }],
});
const calc = (expression: string): ScriptedTurn => ({
  thought: 'Each sum needs the calculator, so I call it once more.',
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

/** Effects a chain's tool calls recorded, by call ID (keys are `<firstRunId>:<callId>`). */
function effectsOf(firstRunId: string): Record<string, number> {
  const effects: Record<string, number> = {};
  for (const [key, count] of recordedEffects) if (key.startsWith(`${firstRunId}:`)) effects[key.split(':')[1]!] = count;
  return effects;
}

/** A fresh scripted model for a fork, so its requests are counted apart from the parent's. */
function scriptFork(turns: readonly ScriptedTurn[] | ((request: RecordedRequest, index: number) => ScriptedTurn)) {
  const model = `fork-${randomUUID()}`;
  harness.model.script(model, turns);
  return model;
}

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);

const lastMessage = (request: RecordedRequest) => {
  const messages = request.messages as Array<{ content: string | null }>;
  return messages[messages.length - 1]?.content ?? '';
};

describe('fork', () => {
  it('takes steps 1..k as recorded with an edited observation and reaches another answer, running nothing again', async () => {
    const parent = await harness.start([effect('a'), effect('b'), { answer: 'Both effects were recorded as asked.' }]);
    const parentResult = await parent.result();
    expect(parentResult.terminationReason).toBe('success');
    expect(effectsOf(parent.firstRunId)).toEqual({ 'c1-1': 1, 'c2-1': 1 });

    // The fork's model answers from the last observation it is shown: the edited one, if the fork used it.
    const model = scriptFork((request) =>
      lastMessage(request).includes('ledger closed')
        ? { answer: 'The ledger was closed, so nothing more was recorded.' }
        : { answer: 'The original observation was shown.' },
    );
    const fork = await harness.agents.fork(parent.workflowId, {
      fromStep: 2,
      observation: 'ledger closed: the effect was refused',
      config: { model },
    });
    const result = await fork.result();

    expect(result.finalAnswer).toBe('The ledger was closed, so nothing more was recorded.');
    expect(result.finalAnswer).not.toBe(parentResult.finalAnswer);
    // Steps 1 and 2 came from the parent: one model call for the new step, and no tool ran again.
    expect(harness.model.requests(model)).toHaveLength(1);
    expect(effectsOf(parent.firstRunId)).toEqual({ 'c1-1': 1, 'c2-1': 1 });
    expect(effectsOf(await firstRunIdOf(harness.client, fork.workflowId))).toEqual({});
    expect(result.trace.steps.map((step) => [step.iteration, step.seeded ?? false, step.edited ?? false])).toEqual([
      [1, true, false],
      [2, true, true],
      [3, false, false],
    ]);
    expect(result.trace.steps[1]?.observation).toBe('ledger closed: the effect was refused');
    expect(result.trace.totalIterations).toBe(3);
    const { runId } = await harness.client.workflow.getHandle(parent.workflowId).describe();
    expect(result.trace.lineage).toEqual({
      kind: 'fork',
      workflowId: parent.workflowId,
      runId,
      step: 2,
      observationEdited: true,
    });
    // The Temporal UI shows where the run came from.
    const details = await harness.client.workflow.getHandle(fork.workflowId).describe();
    expect(await details.staticDetails()).toContain(`Forked from ${parent.workflowId}`);
  });

  it('forks from step k of a continue-as-new chain while the parent waits for an approval', async () => {
    const turns: ScriptedTurn[] = [
      calc('1+1'),
      calc('2+2'),
      calc('3+3'),
      {
        thought: 'The sums are done, so the record can be deleted now.',
        toolCalls: [{ name: 'delete_record', args: { id: 'r1' } }],
      },
    ];
    let thinks = 0;
    const parent = await harness.start(
      // The hand-over summarises step 1, which the next run does not carry.
      (request) => (isSummaryRequest(request) ? { content: 'Step 1 added 1+1.' } : turns[thinks++]!),
      'add, then delete',
      { history: { maxStepsPerRun: 2, carrySteps: 1 } },
    );
    await waitForPending(harness, parent.workflowId);
    expect((await parent.getTrace()).run).toBe(2);

    const model = scriptFork([{ answer: 'I stop after the sums.' }]);
    const fork = await harness.agents.fork(parent.workflowId, { fromStep: 3, config: { model } });
    const result = await fork.result();
    expect(result.finalAnswer).toBe('I stop after the sums.');
    expect(result.trace.steps.filter((step) => step.seeded).map((step) => step.iteration)).toEqual([1, 2, 3]);
    // The fork's model saw what the parent's saw after step 3 (step 1 had left its window at the hand-over), except
    // the running summary, which a fork does not re-create.
    const parentPrompt = harness.model.requests(parent.modelName).filter((request) => !isSummaryRequest(request))[3]
      ?.messages as Array<{ content: unknown }>;
    const isSummary = (message: { content: unknown }) => String(message.content).startsWith('Conversation so far');
    expect(parentPrompt.filter(isSummary)).toHaveLength(1);
    expect(harness.model.requests(model)[0]?.messages).toEqual(parentPrompt.filter((message) => !isSummary(message)));
    // The parent still waits for its person.
    expect((await harness.agents.handle(parent.workflowId).getPending()).approvals.map((call) => call.callId)).toEqual([
      'c4-1',
    ]);
    await harness.agents.handle(parent.workflowId).reject('c4-1', 'not needed');
    await parent.cancel();
  });

  const lineage = { kind: 'continue', workflowId: 'parent', runId: 'r', step: 0, observationEdited: false };
  const totals = { iterations: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
  it.each([
    [{ steps: 'all of them', windowFrom: 0 }, 'Invalid seed: steps must be ReAct steps'],
    // Unchecked, a cost the ledger cannot add to threw in every workflow task: the run hung until terminated.
    [
      { lineage, steps: [], windowFrom: 0, totals: { ...totals, cost: { usd: 0.5 } } },
      'Invalid seed: totals.cost must be a cost ledger as a run reports it (usage, usd, engineActions, …)',
    ],
  ])(
    'a seed sent by hand (the Temporal UI) that is not one fails the run at once with a one-line reason',
    async (seed, reason) => {
      const handle = await harness.client.workflow.start(AGENT_WORKFLOW_TYPE, {
        taskQueue: harness.agents.taskQueue,
        workflowId: `hand-fork-${randomUUID()}`,
        args: [{ query: 'q', config: {}, seed }],
      });
      await expect(handle.result()).rejects.toThrow();
      const { events } = await handle.fetchHistory();
      const failure = events?.at(-1)?.workflowExecutionFailedEventAttributes?.failure;
      expect(failure?.message).toBe(reason);
    },
  );

  it('refuses a step the run does not have, and a final answer', async () => {
    const parent = await harness.start([effect('x'), { answer: 'Done with x.' }]);
    await parent.result();
    await expect(harness.agents.fork(parent.workflowId, { fromStep: 9 })).rejects.toThrow(
      /--from-step must be one of the run's steps \(1-2\), got 9/,
    );
    await expect(harness.agents.fork(parent.workflowId, { fromStep: 2 })).rejects.toBeInstanceOf(ForkRefusedError);
  });
});

describe('continue', () => {
  it('goes on with a run that hit max_iterations: every step and total carried, the limit raised', async () => {
    const parent = await harness.start(
      [effect('a'), effect('b'), { answer: 'I ran out of iterations after two effects.' }],
      'record three effects',
      { limits: { maxIterations: 2 } },
    );
    const stopped = await parent.result();
    expect(stopped.terminationReason).toBe('max_iterations');

    await expect(harness.agents.continue(parent.workflowId)).rejects.toThrow(
      /used 2 iterations: --max-iterations must be more than that/,
    );
    const model = scriptFork([effect('c'), { answer: 'All three effects are recorded.' }]);
    const next = await harness.agents.continue(parent.workflowId, { maxIterations: 5, config: { model } });
    const result = await next.result();

    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('All three effects are recorded.');
    // The parent's forced answer is not a step of the continuation; its two effects ran once, the third once.
    expect(result.trace.steps.map((step) => [step.iteration, step.seeded ?? false])).toEqual([
      [1, true],
      [2, true],
      [3, false],
      [4, false],
    ]);
    expect(effectsOf(parent.firstRunId)).toEqual({ 'c1-1': 1, 'c2-1': 1 });
    expect(effectsOf(await firstRunIdOf(harness.client, next.workflowId))).toEqual({ 'c3-1': 1 });
    expect(result.trace.totalIterations).toBe(4);
    expect(result.tokenUsage.totalTokens).toBeGreaterThan(stopped.tokenUsage.totalTokens);
    expect(result.trace.toolUsage).toEqual({ record_effect: 3 });
    expect(result.trace.lineage).toMatchObject({ kind: 'continue', workflowId: parent.workflowId, step: 2 });
  });

  it('continues and forks a run whose steps pass the 4 MB input limit, clipping the seed (N15)', async () => {
    // 400 steps of ~13,000 characters (a long thought, an 8 KiB result): the stitched trace passes 4 MB, more than
    // one gRPC message (the whole seed of a fork or continuation) may carry.
    const thought = `The export is needed whole, so I fetch the next part. ${'Reasoning. '.repeat(400)}`;
    const fetchNext = (): ScriptedTurn => ({ thought, toolCalls: [{ name: 'bulk_text', args: { kb: 8 } }] });
    const parent = await harness.start(fetchNext, 'fetch', {
      forceFinalAnswer: false,
      limits: { maxIterations: 400, stallThreshold: 1000 },
    });
    const stopped = await parent.result();
    expect(stopped.terminationReason).toBe('max_iterations');
    expect(JSON.stringify(stopped.trace.steps).length).toBeGreaterThan(4 * 1024 * 1024);

    // Before: "Failed to start Workflow" (grpc: received message larger than max).
    const next = await harness.agents.continue(parent.workflowId, {
      maxIterations: 401,
      config: { model: scriptFork([{ answer: 'Fetched them all.' }]) },
    });
    expect((await next.result()).finalAnswer).toBe('Fetched them all.');
    const fork = await harness.agents.fork(parent.workflowId, {
      fromStep: 390,
      config: { model: scriptFork([{ answer: 'Forked late.' }]) },
    });
    const forked = await fork.result();
    expect(forked.finalAnswer).toBe('Forked late.');
    expect(forked.trace.steps.filter((step) => step.seeded)).toHaveLength(390);
  }, 240_000);

  it('refuses a run that succeeded', async () => {
    const parent = await harness.start([{ answer: 'Nothing to do.' }]);
    await parent.result();
    await expect(harness.agents.continue(parent.workflowId, { maxIterations: 50 })).rejects.toThrow(
      /ended with success \(fork it instead\)/,
    );
  });
});
