import type { ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import type { PendingItem } from '../client/decisions';
import { firstRunInput } from '../client/run-chain';

/** Starts a Server-Sent Events response; comment lines keep idle proxies from closing it. */
export function openStream(response: ServerResponse, keepAliveMs = 15_000): { closed: Promise<void> } {
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-store',
    connection: 'keep-alive',
  });
  response.write(': open\n\n');
  const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), keepAliveMs);
  const closed = new Promise<void>((resolve) =>
    response.on('close', () => {
      clearInterval(keepAlive);
      resolve();
    }),
  );
  return { closed };
}

/**
 * Sends one event; multi-line data (HTML fragments) goes out as one `data:` line per line, as SSE requires. SSE ends a
 * line at `\r\n`, `\n` or a lone `\r`: splitting on `\n` alone let a `\r` in a model's question or a tool name end
 * the event early and start one of its own (a forged fragment, or `end`).
 */
export function sendEvent(response: ServerResponse, event: string, data: string, id?: number): void {
  const lines = data.split(/\r\n|\r|\n/).map((line) => `data: ${line}`);
  response.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\n${lines.join('\n')}\n\n`);
}

/**
 * What waits across runs, and the waiting runs that could not be read (no worker answered in time): those are named,
 * never silently left out.
 */
export interface PendingListing {
  items: PendingItem[];
  unreadable: string[];
  /** The question each run with items was started with, by workflow ID (empty when it could not be read). */
  questions?: Record<string, string>;
}

/** The question a run was started with, from its chain's first start event: no worker needed. */
export async function questionOf(client: Client, workflowId: string): Promise<string | undefined> {
  const query = (await firstRunInput(client, workflowId))?.query;
  return typeof query === 'string' ? query : undefined;
}

/** Runs whose question is read at once while listing, as the listing bounds its own queries. */
const QUESTIONS_AT_ONCE = 8;

/**
 * The questions of the runs `items` wait in. A run's question never changes, so `known` keeps each one while its run
 * waits: a history read per run, once. One that could not be read is kept as none (an empty string, which no row
 * shows), so an unreadable start event is not read again at every listing.
 */
export async function questionsOf(
  client: Client,
  items: readonly PendingItem[],
  known: Map<string, string>,
): Promise<Record<string, string>> {
  const ids = new Set(items.map((item) => item.workflowId));
  for (const id of known.keys()) if (!ids.has(id)) known.delete(id);
  const unknown = [...ids].filter((id) => !known.has(id));
  for (let start = 0; start < unknown.length; start += QUESTIONS_AT_ONCE) {
    const batch = unknown.slice(start, start + QUESTIONS_AT_ONCE);
    const read = async (id: string) => {
      known.set(id, (await questionOf(client, id).catch(() => undefined)) ?? '');
    };
    await Promise.all(batch.map(read));
  }
  return Object.fromEntries(known);
}

/** The longest pause between listings while nothing changes (see {@link PendingFeed}). */
export const PENDING_FEED_MAX_INTERVAL_MS = 4_000;

/**
 * Everything waiting across runs, polled from Temporal while someone watches and shared by every watcher: a hundred
 * open inbox tabs cost one visibility query per interval, not a hundred. A listing queries every waiting run (1,000
 * runs took a worker 26 s of work), so while nothing changes the pause doubles, up to 4 s (runs whose
 * visibility record did not change are not asked again, see `PENDING_CACHE_MS`); a change, a new watcher or a
 * decision made here ({@link nudge}) brings it back to `intervalMs`.
 */
export class PendingFeed {
  private readonly listeners = new Set<(listing: PendingListing) => void>();
  private latest: PendingListing | null = null;
  private latestJson = '';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | null = null;
  private delayMs: number;

  constructor(
    private readonly list: () => Promise<PendingListing>,
    private readonly intervalMs = 1000,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.delayMs = intervalMs;
  }

  /** The current listing (polled now when nobody is watching). */
  async current(): Promise<PendingListing> {
    if (this.latest && this.timer) return this.latest;
    await this.poll();
    return this.latest ?? { items: [], unreadable: [] };
  }

  /** Calls `listener` with the listing now and whenever it changes; returns the unsubscribe function. */
  subscribe(listener: (listing: PendingListing) => void): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest);
    if (!this.timer) this.schedule(0);
    else this.nudge();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Something changed here (a decision was sent): list again soon, at the base interval. */
  nudge(): void {
    this.delayMs = this.intervalMs;
    if (this.timer) this.schedule(Math.min(this.intervalMs, 250));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private schedule(delayMs: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.poll().then(() => {
        if (this.timer && this.listeners.size > 0) this.schedule(this.delayMs);
      });
    }, delayMs);
  }

  private poll(): Promise<void> {
    // One poll at a time: a slow server must not pile queries up.
    this.polling ??= (async () => {
      try {
        const listing = await this.list();
        const json = JSON.stringify(listing);
        const changed = json !== this.latestJson;
        this.latest = listing;
        this.latestJson = json;
        if (changed) for (const listener of this.listeners) listener(listing);
        this.delayMs = changed ? this.intervalMs : Math.min(this.delayMs * 2, PENDING_FEED_MAX_INTERVAL_MS);
      } catch (error) {
        this.onError(error);
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }
}
