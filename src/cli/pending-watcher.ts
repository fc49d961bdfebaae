import type { PendingItem } from '../client/decisions';

/**
 * Polls what a run (and its running subagents) wait for and hands each new call or question to `handle`, one at a
 * time (a prompt must finish before the next starts). Read errors are ignored: the next poll tries again.
 */
export function watchPending(
  read: () => Promise<PendingItem[]>,
  handle: (item: PendingItem) => Promise<void>,
  intervalMs = 300,
): { stop(): Promise<void> } {
  const seen = new Set<string>();
  let stopped = false;
  let reading: Promise<unknown> = Promise.resolve();
  const loop = async () => {
    while (!stopped) {
      const pending = read().catch(() => []);
      reading = pending;
      const items = await pending;
      for (const item of items) {
        // Call IDs are per run: a subagent's c1-1 is not the parent's.
        const id = `${item.workflowId} ${item.callId}`;
        if (stopped || seen.has(id)) continue;
        seen.add(id);
        await handle(item).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  void loop();
  return {
    // Resolves once no query is in flight (a prompt still open is not waited for), so the connection may close.
    async stop() {
      stopped = true;
      await reading;
    },
  };
}
