import { describe, expect, it } from 'vitest';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { useHarness, waitForPending } from '../support/harness';

const harness = useHarness();

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);

/** Five calculator steps, then an answer; a summary request is answered with a scripted summary of what it saw. */
function fiveSums(): ScriptedResponder {
  let thinks = 0;
  return (request) => {
    if (isSummaryRequest(request)) {
      // The first step's result, seen in the step itself or in the previous summary being refined.
      const seen = request.messages.map((message) => String(message.content)).join('\n');
      return { content: `SUMMARY: the first sum gave ${/\b101\b/.test(seen) ? '101' : 'nothing seen'}.` };
    }
    thinks += 1;
    if (thinks > 5) return { answer: 'All five sums computed.' };
    return {
      thought: `Next I compute sum number ${thinks} with the calculator.`,
      toolCalls: [{ name: 'calculator', args: { expression: `${thinks}00 + 1` } }],
    };
  };
}

describe('a long run keeps its memory across hand-overs', () => {
  it('summarises the steps a hand-over does not carry into "Conversation so far"', async () => {
    const run = await harness.start(fiveSums(), 'compute five sums', { history: { maxStepsPerRun: 2, carrySteps: 1 } });
    const result = await run.result();

    expect(result.finalAnswer).toBe('All five sums computed.');
    expect(result.trace.run).toBeGreaterThanOrEqual(3);
    expect(result.trace.steps).toHaveLength(6); // the stitched trace keeps every step
    // No summaryEvery: the summary was made at the hand-overs, and the trace carries it.
    expect(result.trace.summary).toBe('SUMMARY: the first sum gave 101.');
    expect(result.trace.errorHistory).toEqual([]);
    const thinking = harness.model.requests(run.modelName).filter((request) => !isSummaryRequest(request));
    const third = JSON.stringify(thinking[2]?.messages);
    expect(third).toContain('Conversation so far');
    expect(third).toContain('SUMMARY: the first sum gave 101.');
    expect(JSON.stringify(thinking[4]?.messages)).toContain('SUMMARY: the first sum gave 101.');
  });

  it('says in the error history how many steps were only listed when the summary call fails', async () => {
    let thinks = 0;
    const responder: ScriptedResponder = (request) => {
      if (isSummaryRequest(request)) return { status: 400, errorMessage: 'summaries are not allowed here' };
      thinks += 1;
      if (thinks > 3) return { answer: 'Done.' };
      return {
        thought: `Next I compute sum number ${thinks} with the calculator.`,
        toolCalls: [{ name: 'calculator', args: { expression: `${thinks}00 + 1` } }],
      };
    };
    const run = await harness.start(responder, 'compute three sums', {
      history: { maxStepsPerRun: 2, carrySteps: 1 },
    });
    const result = await run.result();
    expect(result.finalAnswer).toBe('Done.');
    const messages = result.trace.errorHistory.map((error) => error.message);
    expect(messages).toContainEqual(
      expect.stringMatching(/^at the hand-over, 1 step\(s\) the next run does not carry/),
    );
    // The steps still reach the next run's model, as a list of their calls.
    const thinking = harness.model.requests(run.modelName).filter((request) => !isSummaryRequest(request));
    expect(JSON.stringify(thinking[2]?.messages)).toContain('100 + 1');
  });

  it("getScratchpad of a running chain shows the earlier runs' steps too", async () => {
    let thinks = 0;
    const responder: ScriptedResponder = (request) => {
      if (isSummaryRequest(request)) return { content: 'SUMMARY: sums done.' };
      thinks += 1;
      if (thinks <= 3)
        return {
          thought: `Next I compute sum number ${thinks} with the calculator.`,
          toolCalls: [{ name: 'calculator', args: { expression: `${thinks}00 + 1` } }],
        };
      return {
        thought: 'The sums are done, so the record can be deleted now.',
        toolCalls: [{ name: 'delete_record', args: { id: 'r1' } }],
      };
    };
    const run = await harness.start(responder, 'add, then delete', {
      history: { maxStepsPerRun: 2, carrySteps: 1 },
    });
    await waitForPending(harness, run.workflowId);
    expect((await run.getTrace()).run).toBe(2);
    const scratchpad = await run.getScratchpad();
    for (const expression of ['100 + 1', '200 + 1', '300 + 1']) expect(scratchpad).toContain(expression);
    await run.cancel();
  });
});
