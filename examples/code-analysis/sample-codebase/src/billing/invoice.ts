// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.

/** One billed item. Amounts are in cents to avoid floating-point rounding. */
export interface LineItem {
  description: string;
  unitPriceCents: number;
  quantity: number;
}

/** An invoice: its items, a discount and the tax rate of the customer's country. */
export interface Invoice {
  items: LineItem[];
  discountPercent: number;
  taxRate: number;
}

/** Sum of the line items before discount and tax. */
export function subtotal(invoice: Invoice): number {
  return invoice.items.reduce((sum, item) => sum + item.unitPriceCents * item.quantity, 0);
}

/** Amount due in cents: subtotal, minus the discount, plus tax, rounded to the cent. */
export function invoiceTotal(invoice: Invoice): number {
  const discounted = subtotal(invoice) * (1 - invoice.discountPercent / 100);
  return Math.round(discounted * (1 + invoice.taxRate));
}

/** Formats cents as a currency amount, e.g. 123456 → "1,234.56 EUR". */
export function formatAmount(cents: number, currency = 'EUR'): string {
  const units = (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${units} ${currency}`;
}
