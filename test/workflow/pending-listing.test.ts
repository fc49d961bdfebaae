import { describe, expect, it, vi } from 'vitest';
import { listPending, UNREADABLE_RETRY_MS, type PendingCache } from '../../src/client/decisions';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Red team N12: every listing queried every waiting run, and the inbox listed every second while someone watched (1,000
 * runs: 26 s per listing, two thirds of a worker core). With a cache, a run whose visibility record is unchanged is not
 * asked again, and a run that moved on is.
 */
const harness = useHarness();
const calc = (expression: string) => ({ toolCalls: [{ name: 'calculator', args: { expression } }] });

async function itemsOf(workflowId: string, cache: PendingCache) {
  return (await listPending(harness.client, { cache })).filter((item) => item.workflowId === workflowId);
}

describe('listing what waits reads only runs that changed (N12)', () => {
  it('an unchanged run is not queried again; a run with a new pending call is, at the next listing', async () => {
    const run = await harness.start([calc('1+1'), calc('2+2'), { content: 'Done.' }], 'two sums', {
      approvals: { require: ['calculator'] },
    });
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    const cache: PendingCache = new Map();
    // Visibility catches up with the run's status a moment after its query does.
    await expect.poll(async () => (await itemsOf(run.workflowId, cache)).map((item) => item.callId)).toEqual(['c1-1']);

    // Queries one listing makes for this run: none once visibility shows the record the cache was filled from.
    const queriesOfOneListing = async () => {
      const getHandle = vi.spyOn(harness.client.workflow, 'getHandle');
      try {
        expect((await itemsOf(run.workflowId, cache)).map((item) => item.callId)).toEqual(['c1-1']);
        return getHandle.mock.calls.filter(([id]) => id === run.workflowId).length;
      } finally {
        getHandle.mockRestore();
      }
    };
    await expect.poll(queriesOfOneListing, { timeout: 10_000 }).toBe(0);
    expect(await queriesOfOneListing()).toBe(0);
    // The memo names what waits, so the entry needs no expiry: read long ago, it is still not asked again.
    cache.get(run.workflowId)!.at = 0;
    expect(await queriesOfOneListing()).toBe(0);

    // Same tool, same status once it waits again: only the memo's pending IDs tell the records apart, and
    // the listing asks the run again well before the cache's 30 s bound.
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    await expect
      .poll(async () => (await itemsOf(run.workflowId, cache)).map((item) => item.callId), { timeout: 10_000 })
      .toEqual(['c2-1']);
    await harness.agents.handle(run.workflowId).approve('c2-1');
    expect((await run.result()).finalAnswer).toBe('Done.');
  }, 60_000);

  it('a run whose worker is gone is named, not asked again at every listing, and read again once it can be (T4)', async () => {
    const run = await harness.start([calc('3+3'), { content: 'Six.' }], 'one sum', {
      approvals: { require: ['calculator'] },
    });
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    await expect.poll(async () => (await itemsOf(run.workflowId, new Map())).length).toBe(1);
    /** One listing: this run's items, whether it was asked (a query), and what the listing said of it. */
    const listing = async (cache: PendingCache) => {
      const getHandle = vi.spyOn(harness.client.workflow, 'getHandle');
      const said: string[] = [];
      try {
        const items = await listPending(harness.client, {
          cache,
          onUnreadable: (id, reason) => (id === run.workflowId ? said.push(reason) : undefined),
        });
        const asked = getHandle.mock.calls.some(([id]) => id === run.workflowId);
        return { items: items.filter((item) => item.workflowId === run.workflowId).length, asked, said };
      } finally {
        getHandle.mockRestore();
      }
    };
    const cache: PendingCache = new Map();
    await harness.restartWorker(async () => {
      // No worker answers: the first listing waits out the query and names the run.
      expect(await listing(cache)).toMatchObject({ items: 0, asked: true, said: [expect.any(String)] });
      // The next listing names it again at once, without asking: before, each listing waited for it again.
      expect(await listing(cache)).toEqual({
        items: 0,
        asked: false,
        said: [expect.stringMatching(/asked again in \d+ s, or as soon as the run moves on/)],
      });
    });
    // The worker is back, and the run has not moved: it is asked again once the back-off has passed.
    cache.get(run.workflowId)!.at -= UNREADABLE_RETRY_MS;
    expect(await listing(cache)).toEqual({ items: 1, asked: true, said: [] });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).finalAnswer).toBe('Six.');
  }, 90_000);
});
