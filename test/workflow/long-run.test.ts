import { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import { getScratchpadQuery, getTraceQuery } from '../../src/shared/messages';
import { AgentStatusKey } from '../../src/shared/search-attributes';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { TEST_REVIEWER, useHarness, waitForPending } from '../support/harness';
import { recordedEffects } from '../support/test-tools';

const harness = useHarness();

const TWO_MB = 2 * 1024 * 1024;
const EXPORTS = 'Each export is needed whole, so I fetch all eight at once.';
/** Eight calls of 500 KiB each (cut to ~400 KB by maxObservationTokens), each of its own letter. */
const bulkCalls = () => Array.from('abcdefgh', (fill) => ({ name: 'bulk_text', args: { kb: 500, fill } }));

// The server suggests continue-as-new at 4 Ki events or 4 MiB of history (Temporal's defaults).
const SUGGEST_EVENTS = 4096;
const SUGGEST_BYTES = 4 * 1024 * 1024;

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);

/** Every run of a chain, oldest first, with its history's event count and encoded size. */
async function chainHistories(workflowId: string) {
  const runs: Array<{ runId: string; events: number; bytes: number }> = [];
  for (const runId of await chainRunIds(harness.client, workflowId)) {
    const history = await harness.client.workflow.getHandle(workflowId, runId).fetchHistory();
    const bytes = temporal.api.history.v1.History.encode(history).finish().byteLength;
    runs.push({ runId, events: history.events?.length ?? 0, bytes });
  }
  return runs;
}

describe('long runs stay bounded', () => {
  it(
    'a 1,000-iteration run continues-as-new, keeps budgets and counters, and returns all its steps',
    { timeout: 600_000 },
    async () => {
      const iterations = 1000;
      let thinks = 0;
      // Each hand-over summarises the steps it does not carry; those calls report no usage, so the totals below
      // count the loop's calls alone.
      const responder: ScriptedResponder = (request) => {
        if (isSummaryRequest(request))
          return { content: 'SUMMARY: added one term per step.', usage: { promptTokens: 0, completionTokens: 0 } };
        const index = thinks++;
        return index < iterations
          ? {
              thought: `Step ${index + 1}: I add one more term to the running total.`,
              toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }],
              usage: { promptTokens: 10, completionTokens: 2 },
            }
          : { answer: 'Counted to 1000.', usage: { promptTokens: 10, completionTokens: 2 } };
      };
      const run = await harness.start(responder, 'count to 1000', { limits: { maxIterations: 2000 } });
      const result = await run.result();

      expect(result.terminationReason).toBe('success');
      expect(result.finalAnswer).toBe('Counted to 1000.');
      expect(result.trace.totalIterations).toBe(iterations + 1);
      expect(result.tokenUsage).toEqual({
        promptTokens: 10 * 1001,
        completionTokens: 2 * 1001,
        totalTokens: 12 * 1001,
      });
      expect(result.trace.toolUsage).toEqual({ calculator: iterations });
      expect(result.trace.steps).toHaveLength(iterations + 1);
      expect(result.trace.steps.map((step) => step.iteration)).toEqual(
        Array.from({ length: iterations + 1 }, (_, index) => index + 1),
      );
      expect(result.trace.steps[999]?.observationData).toEqual({ expression: '999 + 1', result: 1000 });

      const runs = await chainHistories(run.workflowId);
      expect(runs.length).toBeGreaterThanOrEqual(10); // maxStepsPerRun defaults to 100
      for (const each of runs) {
        expect(each.events).toBeLessThan(SUGGEST_EVENTS);
        expect(each.bytes).toBeLessThan(SUGGEST_BYTES);
      }
      // The model keeps seeing recent context after each hand-over, and the summary of the steps before it.
      const thinking = harness.model.requests(run.modelName).filter((request) => !isSummaryRequest(request));
      const firstOfRun2 = JSON.stringify(thinking[100]?.messages);
      expect(firstOfRun2).toContain('90 + 1');
      expect(firstOfRun2).toContain('SUMMARY: added one term per step.');
    },
  );

  it('a run of a few large steps hands over before its steps outgrow what a trace query or result can carry', async () => {
    // Large observations make the large steps (a thought is kept to its last 4,000 characters); the window is set
    // large so the prompt is never compacted, which would put summary requests between the scripted turns.
    let thinks = 0;
    const run = await harness.start(
      (request) => {
        // A hand-over summarises the steps it does not carry.
        if (isSummaryRequest(request)) return { content: 'SUMMARY: pages pulled so far.' };
        const index = thinks++;
        return index >= 20
          ? { answer: 'Reconciled.' }
          : {
              thought: 'The ledger has to be reconciled line by line, so I pull the next page of it.',
              toolCalls: [{ name: 'bulk_text', args: { kb: 60 + index } }],
            };
      },
      'q',
      {
        limits: { maxIterations: 30 },
        history: { carrySteps: 2, maxObservationTokens: 15_000 },
        modelSettings: { contextWindow: 10_000_000 },
      },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    // 21 steps of ~60 KB would be ~1.3 MB in one run: it continued-as-new on size, long before maxStepsPerRun (100).
    expect(result.trace.run).toBeGreaterThanOrEqual(2);
    expect(result.trace.steps).toHaveLength(21);
    expect(result.trace.steps.at(-1)).toMatchObject({ action: { type: 'final_answer', answer: 'Reconciled.' } });
  });

  it('a run whose steps outgrow the payload limit in one iteration hands over, window clipped, answer kept', async () => {
    const run = await harness.start(
      [{ thought: EXPORTS, toolCalls: bulkCalls() }, { answer: 'All eight read.' }],
      'q',
      { history: { maxObservationTokens: 100_000, carrySteps: 8 }, limits: { maxToolCallsPerReply: 8 } },
    );
    // ~3.2 MB of observations in one run: the next run's input, carrying them to the model, would be too.
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('All eight read.');
    expect(result.trace.run).toBe(2);
    expect(result.trace.steps).toHaveLength(9);
    expect(result.trace.steps[7]).toMatchObject({ clippedInArchive: true });
    expect(result.trace.steps[7]?.observation).toMatch(/^\[clipped from \d+ characters in the run's archive\] h+$/);
    // The model sees every carried step after the hand-over, each cut (and saying so) to fit.
    const secondCall = JSON.stringify(harness.model.requests(run.modelName)[1]?.messages);
    for (const fill of 'abcdefgh') expect(secondCall).toContain(fill.repeat(100));
    expect(secondCall).toContain("characters in the run's window]");
  });

  it('a run that stops on an iteration too large for a payload keeps its answer; trace and scratchpad fit', async () => {
    const bulk = { thought: EXPORTS, toolCalls: bulkCalls() };
    // The second identical batch (in the second run) stalls the run within the iteration: no hand-over before the
    // result, which would carry ~3.2 MB of that run's steps.
    const run = await harness.start([bulk, bulk, { answer: 'Here is what the exports say.' }], 'q', {
      history: { maxObservationTokens: 100_000 },
      limits: { maxToolCallsPerReply: 8, stallThreshold: 2 },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('stalled');
    expect(result.finalAnswer).toBe('Here is what the exports say.');
    expect(result.trace.run).toBe(2);
    expect(result.trace.steps).toHaveLength(17);
    expect(result.trace.steps[8]?.observation).toMatch(/^\[clipped from \d+ characters in the run's trace\] a+$/);
    const handle = harness.client.workflow.getHandle(run.workflowId);
    expect(JSON.stringify(await handle.query(getTraceQuery)).length).toBeLessThan(TWO_MB);
    expect((await handle.query(getScratchpadQuery)).length).toBeLessThan(TWO_MB);
  });

  it('token budget, always-approvals and search attributes survive continue-as-new', async () => {
    const thought = 'The old record must go, so I delete it with the tool.';
    const responder: ScriptedResponder = (_request, index) => ({
      thought,
      toolCalls: [{ name: 'delete_record', args: { id: `r${index}` } }],
      usage: { promptTokens: 1000, completionTokens: 0 },
    });
    // Reported usage (1000 per call) dwarfs the character estimate of a prompt (a few hundred tokens): after the
    // first report the budget check knows a call costs ~1000, in the next run too.
    const run = await harness.start(responder, 'q', {
      forceFinalAnswer: false,
      history: { maxStepsPerRun: 2 },
      limits: { tokenBudget: 3600 },
    });
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).approve('c1-1', { always: true });
    const result = await run.result();
    // Three calls fit (two in run 1, one in run 2); with 3000 used, counted across runs, a fourth would not.
    expect(result.terminationReason).toBe('token_budget');
    expect(result.trace.totalIterations).toBe(3);
    expect(result.trace.run).toBe(2);
    expect(result.trace.terminationDetail).toContain('(3000 used)');
    expect(result.tokenUsage.totalTokens).toBe(3000);
    expect(result.trace.steps.map((step) => step.observation)).toEqual(['deleted r0', 'deleted r1', 'deleted r2']);
    expect(result.trace.steps.map((step) => step.decision)).toEqual([
      { kind: 'approve', always: true, by: { identity: TEST_REVIEWER, channel: 'client' } },
      undefined,
      undefined,
    ]);
    expect(recordedEffects.get(`${run.firstRunId}:c3-1`)).toBe(1);
    const attributes = (await harness.client.workflow.getHandle(run.workflowId).describe()).typedSearchAttributes;
    expect(attributes.get(AgentStatusKey)).toBe('Completed');
  });

  it('the count of calls that ran and stall detection by iteration survive continue-as-new', async () => {
    const thought = 'I need the product of these numbers and the calculator computes it exactly.';
    const calc = (...expressions: string[]) => ({
      thought,
      toolCalls: expressions.map((expression) => ({ name: 'calculator', args: { expression } })),
    });
    const capped = await harness.start(
      [
        calc('6*7'),
        { thought, toolCalls: [{ name: 'calculator', rawArguments: '{"expression": ' }] },
        calc('6*8'),
        { answer: '42' },
      ],
      'q',
      { history: { maxStepsPerRun: 2 }, limits: { maxCallsPerTool: { calculator: 1 } } },
    );
    const cappedResult = await capped.result();
    expect(cappedResult.trace.run).toBe(2);
    expect(cappedResult.trace.steps.slice(0, 3).map((step) => step.isError)).toEqual([false, true, true]);
    expect(cappedResult.trace.steps[2]?.observation).toContain('may call calculator at most 1 times');
    expect(cappedResult.trace.toolRuns).toEqual({ calculator: 1 });

    const stalled = await harness.start([calc('2+2', '2+2'), calc('2+2'), calc('2+2'), { answer: '4' }], 'q', {
      history: { maxStepsPerRun: 2 },
      limits: { stallThreshold: 3 },
    });
    const stalledResult = await stalled.result();
    expect(stalledResult.trace.run).toBe(2);
    expect(stalledResult.terminationReason).toBe('stalled');
    expect(stalledResult.trace.terminationDetail).toBe(
      'repeat: the same calls in 3 iterations in a row: calculator {"expression":"2+2"}',
    );
  });
});
