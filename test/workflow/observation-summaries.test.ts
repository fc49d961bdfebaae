import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src';
import { SUMMARIZER_MARKER } from '../../src/shared/summaries';
import type { RecordedRequest, ScriptedResponder } from '../../src/testing/scripted-model';
import { useHarness } from '../support/harness';

// A long result whose one fact the task needs is at its end, past what the model is shown (maxObservationTokens).
const filler = 'Routine log line: nothing happened here. ';
const report = (fillerLines: number) => `${filler.repeat(fillerLines)}\nThe audit code is ZETA-42.`;
const harness = useHarness({
  tools: [
    defineTool({
      name: 'audit_report',
      description: 'The audit report, whole.',
      schema: z.object({ lines: z.number().int() }),
      readOnly: false,
      handler: ({ lines }) => report(lines),
    }),
    // The same report from a read-only local tool, which runs ahead inside the model call that names it.
    defineTool({
      name: 'audit_report_ahead',
      description: 'The audit report, whole.',
      schema: z.object({ lines: z.number().int() }),
      readOnly: true,
      local: true,
      handler: ({ lines }) => report(lines),
    }),
  ],
});

const isSummaryRequest = (request: RecordedRequest) =>
  String(request.messages[0]?.content).startsWith(SUMMARIZER_MARKER);

/** A summariser that says what it was shown, as a faithful model would: the code when it saw it. */
function agent(lines: number, tool = 'audit_report'): ScriptedResponder {
  return (request, index) => {
    if (isSummaryRequest(request)) {
      const seen = JSON.stringify(request.messages);
      return { content: seen.includes('ZETA-42') ? 'The report gives the audit code ZETA-42.' : 'Only routine lines.' };
    }
    return index === 0
      ? {
          thought: 'The audit code is in the report, so I fetch it.',
          toolCalls: [{ name: tool, args: { lines } }],
        }
      : { answer: 'Done.' };
  };
}

describe('a long observation is summarised from the whole result', () => {
  it('a fact past the cut the model sees reaches the summary, and no step keeps the whole result', async () => {
    const run = await harness.start(agent(800), 'What is the audit code?', {
      history: { summarizeObservationsOver: 500, maxObservationTokens: 200 },
    });
    const result = await run.result();
    const step = result.trace.steps[0];
    // Before: the summariser saw the text already cut to 800 characters ("… [truncated: …]") and missed the code.
    expect(step?.observation).toBe('The report gives the audit code ZETA-42.');
    expect(step?.summarizedFromTokens).toBeGreaterThan(8000);
    expect(step).not.toHaveProperty('fullText');
    expect(JSON.stringify(result.trace)).not.toContain(filler.repeat(3));
  });

  it('so is the result of a read-only tool that ran ahead inside the model call', async () => {
    const run = await harness.start(agent(800, 'audit_report_ahead'), 'What is the audit code?', {
      history: { summarizeObservationsOver: 500, maxObservationTokens: 200 },
    });
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('The report gives the audit code ZETA-42.');
    expect(result.trace.steps[0]).not.toHaveProperty('fullText');
  });

  it("a result larger than the summariser's window is summarised in parts, then the parts together", async () => {
    // ~280,000 characters: over the 65,536-character part of a 32,768-token window (a model name it does not know).
    const run = await harness.start(agent(7000), 'What is the audit code?', {
      history: { summarizeObservationsOver: 500 },
    });
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('The report gives the audit code ZETA-42.');
    const summaries = harness.model.requests(run.modelName).filter(isSummaryRequest);
    expect(summaries.length).toBeGreaterThanOrEqual(5); // at least four parts and the summary of their summaries
    expect(JSON.stringify(summaries.at(-1)?.messages)).toContain('Part 1: Only routine lines.');
  });
});
