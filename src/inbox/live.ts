import type { ServerResponse } from 'node:http';
import type { PendingItem } from '../client/decisions';

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
 * Everything waiting across runs, polled from Temporal while someone watches and shared by every watcher: a hundred
 * open inbox tabs cost one visibility query per interval, not a hundred.
 */
export class PendingFeed {
  private readonly listeners = new Set<(items: PendingItem[]) => void>();
  private latest: PendingItem[] | null = null;
  private latestJson = '';
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | null = null;

  constructor(
    private readonly list: () => Promise<PendingItem[]>,
    private readonly intervalMs = 1000,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** The current list (polled now when nobody is watching). */
  async current(): Promise<PendingItem[]> {
    if (this.latest && this.timer) return this.latest;
    await this.poll();
    return this.latest ?? [];
  }

  /** Calls `listener` with the list now and whenever it changes; returns the unsubscribe function. */
  subscribe(listener: (items: PendingItem[]) => void): () => void {
    this.listeners.add(listener);
    if (this.latest) listener(this.latest);
    if (!this.timer) {
      void this.poll();
      this.timer = setInterval(() => void this.poll(), this.intervalMs);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
  }

  private poll(): Promise<void> {
    // One poll at a time: a slow server must not pile queries up.
    this.polling ??= (async () => {
      try {
        const items = await this.list();
        const json = JSON.stringify(items);
        const changed = json !== this.latestJson;
        this.latest = items;
        this.latestJson = json;
        if (changed) for (const listener of this.listeners) listener(items);
      } catch (error) {
        this.onError(error);
      } finally {
        this.polling = null;
      }
    })();
    return this.polling;
  }
}
