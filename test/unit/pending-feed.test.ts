import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PendingItem } from '../../src/client/decisions';
import { PENDING_FEED_MAX_INTERVAL_MS, PendingFeed } from '../../src/inbox/live';

/*
 * Red team N12: each listing queries every waiting run (1,000 runs: 26 s of work), and the feed repeated it every
 * second for as long as one list was open. While nothing changes it now backs off; a change or a decision made in the
 * inbox brings it back.
 */
afterEach(() => {
  vi.useRealTimers();
});

describe('the pending feed backs off while nothing changes (N12)', () => {
  it('lists at most a handful of times in a quiet minute, and at once again after a change or a nudge', async () => {
    vi.useFakeTimers();
    let items: PendingItem[] = [];
    let listings = 0;
    const feed = new PendingFeed(async () => {
      listings++;
      return { items, unreadable: [] };
    }, 1000);
    const seen: number[] = [];
    feed.subscribe((latest) => seen.push(latest.items.length));
    await vi.advanceTimersByTimeAsync(60_000);
    // 1 + 2 + 4 s, then every 4 s: about sixteen listings in the first minute, where a fixed 1 s pace made sixty.
    expect(listings).toBeLessThanOrEqual(17);
    const quiet = listings;
    await vi.advanceTimersByTimeAsync(PENDING_FEED_MAX_INTERVAL_MS);
    expect(listings).toBe(quiet + 1); // never slower than the cap

    feed.nudge();
    await vi.advanceTimersByTimeAsync(300);
    expect(listings).toBe(quiet + 2);

    items = [{ kind: 'question', workflowId: 'w', callId: 'q1' } as unknown as PendingItem];
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.advanceTimersByTimeAsync(PENDING_FEED_MAX_INTERVAL_MS);
    expect(seen).toEqual([0, 1]);
    feed.stop();
  });
});
