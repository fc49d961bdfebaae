/**
 * What the chaos driver and its worker processes exchange: the worker's readiness line, and the wire format between
 * the `ledger_write` tool and the ledger service. The service is a plain store: every `PUT /effects/<key>` is
 * applied, so a tool that skipped its check would double-post, and the driver would see it.
 */

/** The line a chaos worker prints on stdout once it polls; the driver waits for it. */
export const READY_LINE = 'ready';

/** What the tool asks the ledger to post. */
export interface LedgerWrite {
  account: string;
  /** The logical entry (e.g. `product`); one run posts each entry once, whatever its retries. */
  entry: string;
  amount: number;
}

/** The ledger's receipt for an applied write, returned again by a check of the same key. */
export interface LedgerReceipt extends LedgerWrite {
  /** The account's balance right after this write. */
  balance: number;
}

/** Path of one write, keyed by the tool call's idempotency key (the run chain's first run ID + call ID). */
export const effectPath = (idempotencyKey: string): string => `/effects/${encodeURIComponent(idempotencyKey)}`;

/** What the payment tool sends: a payment plus the reference the provider lets a client search by. */
export interface PaymentRequest extends LedgerWrite {
  /** The tool call's idempotency key, kept as the payment's metadata (the provider does not de-duplicate on it). */
  reference: string;
}

/** The provider's receipt for a payment. */
export interface PaymentReceipt extends LedgerReceipt {
  reference: string;
}

/** Payments: POST applies one, `GET ?reference=` searches them (like a payment API's search by metadata). */
export const PAYMENTS_PATH = '/payments';
