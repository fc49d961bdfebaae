import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../src/worker/tools/define-tool';
import { effectPath, type LedgerReceipt } from './protocol';

/** Name of the side-effect tool the chaos scripts call. */
export const LEDGER_TOOL = 'ledger_write';

/**
 * Per-attempt timeout of a ledger write: short, so an attempt lost with a killed worker is retried within seconds
 * rather than after the 20 s heartbeat timeout.
 */
export const LEDGER_TOOL_TIMEOUT = '5s';

const schema = z.object({
  account: z.string().min(1),
  entry: z.string().min(1),
  amount: z.number().int(),
});

/**
 * A side-effect tool that is safe to retry, the way a real payments API is used: check the idempotency key first,
 * apply only when the ledger has no write under it, and return the first receipt otherwise. Temporal never runs two
 * attempts of one activity at once, so check-then-apply cannot race with itself.
 */
export function createLedgerTool(ledgerUrl: string): AnyToolDefinition {
  return defineTool({
    name: LEDGER_TOOL,
    description: 'Posts an amount to an account in the ledger, once per call even when the call is retried.',
    category: 'payments',
    schema,
    retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2 },
    timeout: LEDGER_TOOL_TIMEOUT,
    handler: async (write, { idempotencyKey, signal }) => {
      const url = `${ledgerUrl}${effectPath(idempotencyKey)}`;
      const existing = await fetch(url, { signal });
      if (existing.ok) return { ...((await existing.json()) as LedgerReceipt), replayed: true };
      if (existing.status !== 404) throw new Error(`ledger check failed with HTTP ${existing.status}`);
      const applied = await fetch(url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(write),
        signal,
      });
      if (!applied.ok) throw new Error(`ledger write failed with HTTP ${applied.status}`);
      return (await applied.json()) as LedgerReceipt;
    },
  });
}
