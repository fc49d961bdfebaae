import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ModelReply } from '../../src/shared/protocol';
import type { RunAheadRequest } from '../../src/shared/tool-protocol';
import { ZERO_USAGE } from '../../src/shared/cost';
import {
  RUN_AHEAD_MAX_CHARS,
  RUN_AHEAD_MAX_MS,
  runAhead,
  runAheadBudgetMs,
} from '../../src/worker/activities/run-ahead';
import { defineTool } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';

// The worker's half of running ahead: whatever a read-only tool does, the model call it rides on must not fail, and
// its recorded result must stay small enough for Temporal.
const registry = new ToolRegistry([
  defineTool({
    name: 'echo',
    description: 'Echoes.',
    category: 'test',
    schema: z.object({ text: z.string() }),
    readOnly: true,
    handler: ({ text }) => text,
  }),
  defineTool({
    name: 'strict',
    description: 'Its schema throws on some input.',
    category: 'test',
    schema: z.object({ n: z.number() }).transform(({ n }) => {
      if (n < 0) throw new Error('the schema itself throws');
      return n;
    }),
    readOnly: true,
    handler: (n) => n,
  }),
  defineTool({
    name: 'writer',
    description: 'Not read-only.',
    category: 'test',
    schema: z.object({}),
    handler: () => 'wrote',
  }),
]);

const request: RunAheadRequest = {
  tools: ['echo', 'strict', 'writer'],
  iteration: 4,
  maxObservationTokens: 200_000,
  maxCalls: 8,
  keyPrefix: 'run',
};
const reply = (...calls: Array<[string, unknown]>): ModelReply => ({
  type: 'tool_calls',
  thought: 'Reading first.',
  usage: ZERO_USAGE,
  assistantMessage: { role: 'assistant', content: '' },
  calls: calls.map(([tool, args], index) => ({ callId: `x${index}`, tool, args, argumentsText: JSON.stringify(args) })),
});
const limit = { budgetMs: 5_000, cancelled: new AbortController().signal };
const ranAhead = (result: ModelReply) => (result.type === 'tool_calls' ? (result.ranAhead ?? []) : []);

describe('running read-only tools ahead in the model call', () => {
  it('answers read-only calls under the call IDs the workflow gives them, and nothing else', async () => {
    const result = await runAhead(registry, reply(['echo', { text: 'hi' }], ['writer', {}]), request, limit);
    const [only, ...others] = ranAhead(result);
    expect(others).toEqual([]);
    expect([only?.callId, only?.tool, only?.argsJson, only?.observation.text]).toEqual([
      'c4-1',
      'echo',
      '{"text":"hi"}',
      'hi',
    ]);
  });

  it('a schema that throws leaves the call to its own activity instead of failing the model call', async () => {
    const result = await runAhead(registry, reply(['strict', { n: -1 }], ['strict', { n: 2 }]), request, limit);
    expect(ranAhead(result).map((entry) => entry.callId)).toEqual(['c4-2']);
  });

  it('keeps the results a reply carries under a size budget; the rest run as their own activities', async () => {
    // Each result holds its text twice (arguments and observation): about 2/7 of the budget.
    const big = 'x'.repeat(Math.floor(RUN_AHEAD_MAX_CHARS / 7));
    const calls: Array<[string, unknown]> = [1, 2, 3, 4].map((i) => ['echo', { text: `${i}${big}` }]);
    const result = await runAhead(registry, reply(...calls), request, limit);
    expect(ranAhead(result).map((entry) => entry.callId)).toEqual(['c4-1', 'c4-2', 'c4-3']);
  });

  it('runs nothing when the attempt has no time to spare, or the reply has more calls than the workflow takes', async () => {
    const calls = reply(['echo', { text: 'a' }], ['echo', { text: 'b' }]);
    expect(ranAhead(await runAhead(registry, calls, request, { ...limit, budgetMs: 0 }))).toEqual([]);
    expect(ranAhead(await runAhead(registry, calls, { ...request, maxCalls: 1 }, limit))).toEqual([]);
  });

  it('never spends more of the attempt than its end minus a margin, nor more than the cap', () => {
    const attempt = { startToCloseTimeoutMs: 90_000, scheduledAtMs: 0 };
    expect(runAheadBudgetMs(attempt, 1_000)).toBe(RUN_AHEAD_MAX_MS);
    expect(runAheadBudgetMs(attempt, 80_000)).toBe(5_000);
    expect(runAheadBudgetMs(attempt, 86_000)).toBeLessThanOrEqual(0);
  });
});
