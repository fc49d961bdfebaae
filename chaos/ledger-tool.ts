import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../src/worker/tools/define-tool';
import { effectPath, PAYMENTS_PATH, type LedgerReceipt, type PaymentReceipt } from './protocol';

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

/** Name of the payment tool: the same ledger, through a provider with no idempotency keys. */
export const PAYMENT_TOOL = 'ledger_pay';

/**
 * A side-effect tool whose provider has no idempotency keys, like a payment API that only lets you search payments by
 * metadata: the handler posts the payment with the call's key as its reference, and `reconcile` searches by it. A
 * payment found is `done` (its receipt is the result), none is `not_done`, a search that fails is `unknown`.
 */
export function createPaymentTool(ledgerUrl: string): AnyToolDefinition {
  return defineTool({
    name: PAYMENT_TOOL,
    description: 'Posts an amount to an account through a payment provider that has no idempotency keys.',
    category: 'payments',
    schema,
    retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2 },
    timeout: LEDGER_TOOL_TIMEOUT,
    handler: async (write, { idempotencyKey, signal }) => {
      const paid = await fetch(`${ledgerUrl}${PAYMENTS_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...write, reference: idempotencyKey }),
        signal,
      });
      if (!paid.ok) throw new Error(`payment failed with HTTP ${paid.status}`);
      return (await paid.json()) as PaymentReceipt;
    },
    reconcile: async (idempotencyKey, _args, { signal }) => {
      const found = await fetch(`${ledgerUrl}${PAYMENTS_PATH}?reference=${encodeURIComponent(idempotencyKey)}`, {
        signal,
      });
      if (!found.ok) return { status: 'unknown', detail: `payment search answered HTTP ${found.status}` };
      const { payments } = (await found.json()) as { payments: PaymentReceipt[] };
      const first = payments[0];
      return first ? { status: 'done', result: first } : { status: 'not_done' };
    },
  });
}
