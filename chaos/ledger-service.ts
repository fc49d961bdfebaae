import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LedgerReceipt, LedgerWrite } from './protocol';

/** A request the ledger received: a check (GET) or a write (PUT), under a tool call's idempotency key. */
export interface LedgerRequest {
  kind: 'check' | 'apply';
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
  /** Calls `listener` as each request arrives (before any hold), e.g. to kill a worker mid-call. */
  onRequest(listener: (request: LedgerRequest) => void): () => void;
  close(): Promise<void>;
}

/** Options: `holdMs` delays each answer (a check waits before answering; a write applies, then waits). */
export interface LedgerServiceOptions {
  holdMs?: number;
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

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
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
