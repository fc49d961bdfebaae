import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/worker/tools/define-tool';
import { useHarness } from '../support/harness';

/** A failure another attempt could fix. */
class UpstreamTimeout extends Error {
  override readonly name = 'UpstreamTimeout';
}

/** A failure no retry fixes: the order itself is wrong. */
class OrderRejected extends Error {
  override readonly name = 'OrderRejected';
}

/** Handler invocations per idempotency key (one key per call, the same across its attempts). */
const invocations = new Map<string, number>();

function invoke(idempotencyKey: string): number {
  const count = (invocations.get(idempotencyKey) ?? 0) + 1;
  invocations.set(idempotencyKey, count);
  return count;
}

const retry = { maximumAttempts: 3, initialInterval: '200ms', backoffCoefficient: 1 };

const placeOrder = defineTool({
  name: 'place_order',
  description: 'Places an order; refuses a quantity the shop does not sell.',
  schema: z.object({ quantity: z.number() }),
  retry,
  retryableErrors: [UpstreamTimeout, /rate limit/i],
  handler: ({ quantity }, { idempotencyKey }) => {
    invoke(idempotencyKey);
    throw new OrderRejected(`quantity ${quantity} is not sold in packs of 12`);
  },
});

const flakyQuote = defineTool({
  name: 'flaky_quote',
  description: 'Quotes a price; its upstream times out on the first try.',
  schema: z.object({ item: z.string() }),
  retry,
  retryableErrors: ['UpstreamTimeout'],
  handler: ({ item }, { idempotencyKey }) => {
    if (invoke(idempotencyKey) === 1) throw new UpstreamTimeout('upstream timed out after 5s');
    return `${item} costs 4.20`;
  },
});

/** The same tool as a remote activity: Temporal's server, not the worker, schedules its retry. */
const flakyQuoteRemote = defineTool({ ...flakyQuote, name: 'flaky_quote_remote', local: false });

const alwaysTimesOut = defineTool({
  name: 'always_times_out',
  description: 'Its upstream never answers.',
  schema: z.object({}),
  retry,
  retryableErrors: [UpstreamTimeout],
  handler: (_args, { idempotencyKey }) => {
    throw new UpstreamTimeout(`upstream timed out (attempt ${invoke(idempotencyKey)})`);
  },
});

const harness = useHarness({ tools: [placeOrder, flakyQuote, flakyQuoteRemote, alwaysTimesOut] });

const thought = 'I need this tool to do what the task asks.';

/** Handler invocations of a run's calls: each test's run makes one call. */
function invocationsOf(firstRunId: string): number {
  return [...invocations.entries()]
    .filter(([key]) => key.startsWith(`${firstRunId}:`))
    .reduce((sum, [, count]) => sum + count, 0);
}

describe('retryable and permanent tool errors', () => {
  it('an error the tool does not list as retryable fails on its first attempt', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'place_order', args: { quantity: 7 } }] },
      { answer: 'The order was refused: packs of 12 only.' },
    ]);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(invocationsOf(run.firstRunId)).toBe(1);
    expect(result.trace.steps[0]?.observation).toBe(
      '[error] place_order({"quantity":7}): quantity 7 is not sold in packs of 12',
    );
    expect(result.trace.errorHistory).toEqual([
      expect.objectContaining({ kind: 'tool_error', tool: 'place_order', retries: 0, recovered: false }),
    ]);
  });

  it('a call that fails once with a retryable error and then succeeds is recorded as recovered', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'flaky_quote', args: { item: 'tea' } }] },
      { answer: 'Tea costs 4.20.' },
    ]);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(invocationsOf(run.firstRunId)).toBe(2);
    // The model saw the result, not the failure.
    expect(result.trace.steps[0]).toMatchObject({ observation: 'tea costs 4.20', isError: false });
    expect(result.trace.errorHistory).toEqual([
      {
        iteration: 1,
        kind: 'tool_error',
        tool: 'flaky_quote',
        message: '[error] flaky_quote({"item":"tea"}): upstream timed out after 5s',
        retries: 1,
        recovered: true,
        timestamp: expect.any(String) as string,
      },
    ]);
  });

  it('a remote activity that recovers is recorded the same way', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'flaky_quote_remote', args: { item: 'tea' } }] },
      { answer: 'Tea costs 4.20.' },
    ]);
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ observation: 'tea costs 4.20', isError: false });
    expect(result.trace.errorHistory).toEqual([
      expect.objectContaining({
        tool: 'flaky_quote_remote',
        message: '[error] flaky_quote_remote({"item":"tea"}): upstream timed out after 5s',
        retries: 1,
        recovered: true,
      }),
    ]);
  });

  it('a retryable error is retried until the attempts run out, and the history says how many', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'always_times_out', args: {} }] },
      { answer: 'The upstream is down.' },
    ]);
    const result = await run.result();
    expect(invocationsOf(run.firstRunId)).toBe(3);
    expect(result.trace.steps[0]?.observation).toBe('[error] always_times_out({}): upstream timed out (attempt 3)');
    expect(result.trace.errorHistory).toEqual([
      expect.objectContaining({ kind: 'tool_error', tool: 'always_times_out', retries: 2, recovered: false }),
    ]);
  });
});
