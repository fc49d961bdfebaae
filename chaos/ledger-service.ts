import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  PAYMENTS_PATH,
  type LedgerReceipt,
  type LedgerWrite,
  type PaymentReceipt,
  type PaymentRequest,
} from './protocol';

/**
 * A request the ledger received: a check (GET) or a write (PUT) under a tool call's idempotency key, or (payments
 * mode, no idempotency keys) a payment (POST) or a search by reference, whose `idempotencyKey` is the reference.
 */
export interface LedgerRequest {
  kind: 'check' | 'apply' | 'pay' | 'search';
  idempotencyKey: string;
}

/** A write the ledger applied. */
export interface AppliedEffect extends LedgerReceipt {
  idempotencyKey: string;
}

/**
 * The truth about side effects: a loopback HTTP ledger the driver runs and the `ledger_write` tool calls. It applies
 * every write it receives (no de-duplication of its own), so duplicates here are duplicates the tool let through.
 */
export interface LedgerService {
  readonly url: string;
  /** Every applied write, in order. */
  applied(): AppliedEffect[];
  /** Sum of the applied amounts of an account. */
  balance(account: string): number;
  /** Idempotency keys the tool checked more than once: calls retried after a lost attempt. */
  retriedKeys(): number;
  /** Checks that found a write already applied: retries that got the first receipt instead of writing again. */
  replays(): number;
  /** Writes applied more than once for one logical entry (account + entry), summed over entries. */
  duplicateEffects(accounts?: ReadonlySet<string>): number;
  /** Payments carrying this reference, as the provider's own records hold them (what a person would look up). */
  paymentsByReference(reference: string): PaymentReceipt[];
  /** Searches answered 503 (the `unsearchable` references): calls reconcile could not settle. */
  failedSearches(): number;
  /** Calls `listener` as each request arrives (before any hold), e.g. to kill a worker mid-call. */
  onRequest(listener: (request: LedgerRequest) => void): () => void;
  close(): Promise<void>;
}

/**
 * Options: `holdMs` delays each answer (a check waits before answering; a write applies, then waits; a payment waits,
 * applies unless its caller is gone, then waits again). `unsearchable`: references whose search answers 503, so a
 * tool's reconcile cannot tell whether they were paid.
 */
export interface LedgerServiceOptions {
  holdMs?: number;
  unsearchable?: (reference: string) => boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  if (response.destroyed) return;
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the ledger on 127.0.0.1 with a free port. */
export async function startLedgerService(options: LedgerServiceOptions = {}): Promise<LedgerService> {
  const holdMs = options.holdMs ?? 0;
  const effects: AppliedEffect[] = [];
  const byKey = new Map<string, LedgerReceipt>();
  const balances = new Map<string, number>();
  const listeners = new Set<(request: LedgerRequest) => void>();
  const checks = new Map<string, number>();
  let replays = 0;

  const payments: PaymentReceipt[] = [];
  let failedSearches = 0;

  /**
   * The payments mode: no idempotency keys. Every payment received while its caller is still there is applied (a
   * caller killed before the provider processed the request never got it through), and a payment can be found by the
   * reference it carries, except the `unsearchable` ones.
   */
  async function handlePayments(request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
    if (request.method === 'POST') {
      const payment = JSON.parse(await readBody(request)) as PaymentRequest;
      for (const listener of listeners) listener({ kind: 'pay', idempotencyKey: payment.reference });
      await sleep(holdMs);
      if (request.socket.destroyed) return;
      const balance = (balances.get(payment.account) ?? 0) + payment.amount;
      balances.set(payment.account, balance);
      const receipt: PaymentReceipt = { ...payment, balance };
      payments.push(receipt);
      effects.push({ ...receipt, idempotencyKey: payment.reference });
      await sleep(holdMs);
      return reply(response, 200, receipt);
    }
    const reference = url.searchParams.get('reference') ?? '';
    for (const listener of listeners) listener({ kind: 'search', idempotencyKey: reference });
    if (options.unsearchable?.(reference)) {
      failedSearches++;
      return reply(response, 503, { error: 'payment search is unavailable' });
    }
    reply(response, 200, { payments: payments.filter((payment) => payment.reference === reference) });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://ledger');
    if (url.pathname === PAYMENTS_PATH) return handlePayments(request, response, url);
    const match = /^\/effects\/([^/]+)$/.exec(request.url ?? '');
    if (!match?.[1]) return reply(response, 404, { error: 'unknown path' });
    const idempotencyKey = decodeURIComponent(match[1]);
    const kind = request.method === 'PUT' ? 'apply' : 'check';
    for (const listener of listeners) listener({ kind, idempotencyKey });
    if (kind === 'check') {
      checks.set(idempotencyKey, (checks.get(idempotencyKey) ?? 0) + 1);
      await sleep(holdMs);
      const found = byKey.get(idempotencyKey);
      if (found) replays++;
      return found ? reply(response, 200, found) : reply(response, 404, { error: 'no write under this key' });
    }
    const write = JSON.parse(await readBody(request)) as LedgerWrite;
    // Applied as soon as it is received, whether or not the caller lives to read the receipt.
    const balance = (balances.get(write.account) ?? 0) + write.amount;
    balances.set(write.account, balance);
    const receipt: LedgerReceipt = { ...write, balance };
    effects.push({ ...receipt, idempotencyKey });
    byKey.set(idempotencyKey, receipt);
    await sleep(holdMs);
    reply(response, 200, receipt);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => reply(response, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    applied: () => [...effects],
    balance: (account) => balances.get(account) ?? 0,
    replays: () => replays,
    paymentsByReference: (reference) => payments.filter((payment) => payment.reference === reference),
    failedSearches: () => failedSearches,
    retriedKeys: () => [...checks.values()].filter((count) => count > 1).length,
    duplicateEffects(accounts) {
      const counts = new Map<string, number>();
      for (const effect of effects) {
        if (accounts && !accounts.has(effect.account)) continue;
        const entry = `${effect.account}\u0000${effect.entry}`;
        counts.set(entry, (counts.get(entry) ?? 0) + 1);
      }
      return [...counts.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
    },
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
