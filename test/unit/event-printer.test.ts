import { describe, expect, it } from 'vitest';
import { missedLines, printEvents } from '../../src/client/event-printer';
import type { EventsGap } from '../../src/client/events';
import type { AgentEvent } from '../../src/shared/events';
import type { ReActTrace } from '../../src/shared/types';

const at = '2026-01-01T00:00:00.000Z';
const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };

const trace: ReActTrace = {
  steps: [
    {
      iteration: 1,
      thought: 'The price needs a lookup.',
      action: { type: 'tool_call', tool: 'stock_price', args: { symbol: 'AAPL' }, callId: 'c1-1' },
      observation: '{"price":227.5}',
      timestamp: at,
      tokenUsage: usage,
    },
    {
      iteration: 2,
      thought: '',
      action: { type: 'final_answer', answer: 'AAPL is 227.5.' },
      observation: null,
      timestamp: at,
      tokenUsage: usage,
    },
  ],
  finalResult: 'AAPL is 227.5.',
  terminationReason: 'success',
  totalIterations: 2,
  totalTokens: 4,
  toolUsage: { stock_price: 1 },
  toolRuns: { stock_price: 1 },
  errorHistory: [],
  rejectedThoughts: 0,
  terminationDetail: null,
  run: 1,
  stepsInEarlierRuns: 0,
  summary: null,
};

describe("run's live trace (printEvents)", () => {
  it('a stream abandoned before the end leaves the missed lines to the result: the trace always shows the answer', async () => {
    const lines: string[] = [];
    // A stream that delivers the first step and then stalls until it is aborted, as a follower whose last read hangs.
    async function* stalled(signal: AbortSignal): AsyncGenerator<AgentEvent | EventsGap> {
      yield { type: 'thought', iteration: 1, text: 'The price needs a lookup.', seq: 2, at, run: 1 };
      yield {
        type: 'tool_call_requested',
        iteration: 1,
        callId: 'c1-1',
        tool: 'stock_price',
        args: '{"symbol":"AAPL"}',
        seq: 3,
        at,
        run: 1,
      };
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    }
    const shown = await printEvents(stalled, (line) => lines.push(line)).stop();
    expect(shown.ended).toBe(false);
    const missed = missedLines(trace, shown);
    // Only what the stream did not print: the observation and the final answer.
    expect(missed).toHaveLength(2);
    expect(missed[0]).toContain('Observation (c1-1): {"price":227.5}');
    expect(missed[1]).toBe('[step 2] Final answer: AAPL is 227.5.');
    expect([...lines, ...missed].filter((line) => line.includes('Thought'))).toHaveLength(1);
  });

  it('a stream that reached the end adds nothing', async () => {
    async function* whole(): AsyncGenerator<AgentEvent | EventsGap> {
      yield { type: 'final_answer', iteration: 2, answer: 'AAPL is 227.5.', forced: false, seq: 6, at, run: 1 };
      yield { type: 'terminated', reason: 'success', detail: null, seq: 7, at, run: 1 };
    }
    const shown = await printEvents(whole, () => undefined).stop();
    expect(missedLines(trace, shown)).toEqual([]);
  });
});
