import { z } from 'zod';
import type { PriceTable } from '../shared/cost';
import { formatZodIssues } from '../shared/validation';

/*
 * The worker's price table: USD per million tokens by model name. No prices ship with the package: they change more
 * often than releases do, and a stale price would print a wrong bill with confidence. A run whose model has no price
 * shows its tokens and "no price", never $0.
 */

const perMillion = z.number().min(0).max(1_000_000);
const priceTableSchema = z.record(
  z.string().min(1),
  z.strictObject({ input: perMillion, output: perMillion, cachedInput: perMillion.optional() }),
);

/** Checks a price table (the plugin's `prices`, or WORKER_PRICES' JSON); the problems on one line when it is bad. */
export function checkPriceTable(input: unknown): { ok: true; prices: PriceTable } | { ok: false; message: string } {
  const parsed = priceTableSchema.safeParse(input);
  return parsed.success
    ? { ok: true, prices: parsed.data }
    : { ok: false, message: formatZodIssues(parsed.error.issues) };
}
