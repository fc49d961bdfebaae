import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../../src/worker/tools/define-tool';

/** Effects recorded by `record_effect`, keyed by idempotency key, to check exactly-once behaviour. */
export const recordedEffects = new Map<string, number>();

/**
 * The first run ID of a workflow's current run chain: tool calls of the chain get `<firstRunId>:<callId>` as their
 * idempotency key, so tests look effects up by it.
 */
export async function firstRunIdOf(client: Client, workflowId: string): Promise<string> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const firstRunId = raw.workflowExecutionInfo?.firstRunId;
  if (!firstRunId) throw new Error(`the server did not report the first run ID of ${workflowId}`);
  return firstRunId;
}

/** Idempotency keys of `wait_forever` calls whose abort signal fired (cancellation reached the activity). */
export const abortedCalls = new Set<string>();

/** Tools that only tests need: one that always throws, one that waits until cancelled, one with a side effect. */
export function createTestTools(): AnyToolDefinition[] {
  return [
    defineTool({
      name: 'explode',
      description: 'Always fails (for testing error observations).',
      category: 'test',
      schema: z.object({ reason: z.string() }),
      handler: ({ reason }) => {
        throw new Error(`exploded: ${reason}`);
      },
    }),
    defineTool({
      name: 'wait_forever',
      description: 'Waits until the run is cancelled or times out.',
      category: 'test',
      schema: z.object({}),
      timeout: '5m',
      handler: (_args, { signal, idempotencyKey }) =>
        new Promise<string>((_resolve, reject) => {
          const abort = () => {
            abortedCalls.add(idempotencyKey);
            reject(new Error('aborted'));
          };
          signal.addEventListener('abort', abort, { once: true });
        }),
    }),
    defineTool({
      name: 'delete_record',
      description: 'Deletes a record (a side effect a person must confirm); counts executions per idempotency key.',
      category: 'test',
      schema: z.object({ id: z.string().min(1) }),
      confirm: 'always',
      handler: ({ id }, { idempotencyKey }) => {
        recordedEffects.set(idempotencyKey, (recordedEffects.get(idempotencyKey) ?? 0) + 1);
        return `deleted ${id}`;
      },
    }),
    defineTool({
      name: 'transfer',
      description: 'Transfers money; amounts over 100 need confirmation.',
      category: 'test',
      schema: z.object({ amount: z.number().positive(), to: z.string() }),
      confirm: { when: 'greater_than', arg: 'amount', value: 100 },
      handler: ({ amount, to }) => `sent ${amount} to ${to}`,
    }),
    defineTool({
      name: 'stock_price',
      description: 'Latest price of a stock ticker.',
      category: 'finance',
      schema: z.object({ symbol: z.string() }),
      handler: ({ symbol }) => ({ symbol, price: symbol === 'AAPL' ? 227.5 : 10, currency: 'USD' }),
    }),
    defineTool({
      name: 'interest_rate',
      description: 'Current value of a central-bank policy rate.',
      category: 'finance',
      schema: z.object({ name: z.string() }),
      // Longer than a local activity's limit: this one runs as a remote activity (tests check both kinds).
      timeout: '2m',
      handler: ({ name }) => ({ name, ratePercent: name.toLowerCase() === 'selic' ? 10.75 : 4 }),
    }),
    defineTool({
      name: 'bulk_text',
      description: 'Returns `kb` KiB of text (a tool whose output is far larger than a step should keep).',
      category: 'test',
      schema: z.object({ kb: z.number().int().min(1).max(4096), fill: z.string().length(1).default('q') }),
      handler: ({ kb, fill }) => fill.repeat(kb * 1024),
    }),
    defineTool({
      name: 'record_effect',
      description: 'Records a side effect once per idempotency key.',
      category: 'test',
      schema: z.object({ label: z.string() }),
      handler: ({ label }, { idempotencyKey }) => {
        recordedEffects.set(idempotencyKey, (recordedEffects.get(idempotencyKey) ?? 0) + 1);
        return { recorded: label, idempotencyKey };
      },
    }),
  ];
}
