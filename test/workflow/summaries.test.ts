import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

const root = mkdtempSync(path.join(os.tmpdir(), 'dra-summary-'));
writeFileSync(
  path.join(root, 'report.txt'),
  `Quarterly revenue was 4.2M EUR. ${'Filler sentence about nothing. '.repeat(300)}`,
);
const harness = useHarness({ toolsRoot: root });

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);

describe('running summary and observation summaries', () => {
  it('history.summaryEvery folds earlier steps into "Conversation so far" and later prompts carry only the summary', async () => {
    let thinks = 0;
    let summaries = 0;
    const responder: ScriptedResponder = (request) => {
      if (isSummaryRequest(request)) {
        summaries += 1;
        return { content: `SUMMARY ${summaries}: computed the first ${thinks} sums.` };
      }
      thinks += 1;
      if (thinks > 5) return { answer: 'All sums computed.' };
      return {
        thought: `Next I compute sum number ${thinks} with the calculator.`,
        toolCalls: [{ name: 'calculator', args: { expression: `${thinks}00 + 1` } }],
      };
    };
    const run = await harness.start(responder, 'compute five sums', { history: { summaryEvery: 2 } });
    const result = await run.result();

    expect(result.finalAnswer).toBe('All sums computed.');
    expect(result.trace.summary).toBe('SUMMARY 2: computed the first 4 sums.');
    expect(result.trace.steps).toHaveLength(6); // the trace keeps every step
    const requests = harness.model.requests(run.modelName);
    const thinking = requests.filter((request) => !isSummaryRequest(request));
    const afterSecondSummary = JSON.stringify(thinking[4]?.messages);
    expect(afterSecondSummary).toContain('Conversation so far');
    expect(afterSecondSummary).toContain('SUMMARY 2: computed the first 4 sums.');
    expect(afterSecondSummary).not.toContain('300 + 1'); // folded into the summary, no longer sent
    const secondSummaryRequest = requests.filter(isSummaryRequest)[1];
    expect(JSON.stringify(secondSummaryRequest?.messages)).toContain('SUMMARY 1'); // the previous summary is refined
    expect(JSON.stringify(secondSummaryRequest?.messages)).toContain('400 + 1');
  });

  it("history.summarizeObservationsOver replaces a long observation with the model's summary and records the raw size", async () => {
    const responder: ScriptedResponder = (request, index) => {
      if (isSummaryRequest(request))
        return { content: 'The report says quarterly revenue was 4.2M EUR; the rest is filler.' };
      return index === 0
        ? {
            thought: 'The revenue figure is in the report file, so I read it.',
            toolCalls: [{ name: 'read_file', args: { path: 'report.txt' } }],
          }
        : { answer: 'Revenue was 4.2M EUR.' };
    };
    const run = await harness.start(responder, 'What was the quarterly revenue?', {
      history: { summarizeObservationsOver: 500 },
    });
    const result = await run.result();
    const step = result.trace.steps[0];
    expect(step?.observation).toBe('The report says quarterly revenue was 4.2M EUR; the rest is filler.');
    expect(step?.summarizedFromTokens).toBeGreaterThan(2000);
    const toolMessage = harness.model
      .requests(run.modelName)
      .at(-1)
      ?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe(step?.observation);
  });
});
