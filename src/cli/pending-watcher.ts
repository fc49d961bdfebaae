import type { PendingCall, PendingDecisions, PendingQuestion } from '../shared/approvals';

/** Something a person must act on, seen for the first time. */
export type NewPending = { kind: 'approval'; call: PendingCall } | { kind: 'question'; question: PendingQuestion };

/**
 * Polls what a run waits for and hands each new call or question to `handle`, one at a time (a prompt must finish
 * before the next starts). Read errors are ignored: the next poll tries again.
 */
export function watchPending(
  read: () => Promise<PendingDecisions>,
  handle: (item: NewPending) => Promise<void>,
  intervalMs = 300,
): { stop(): void } {
  const seen = new Set<string>();
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      const pending = await read().catch(() => null);
      const items: NewPending[] = [
        ...(pending?.approvals ?? []).map((call) => ({ kind: 'approval' as const, call })),
        ...(pending?.question ? [{ kind: 'question' as const, question: pending.question }] : []),
      ];
      for (const item of items) {
        const id = item.kind === 'approval' ? item.call.callId : item.question.callId;
        if (stopped || seen.has(id)) continue;
        seen.add(id);
        await handle(item).catch(() => undefined);
      }
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  };
  void loop();
  return {
    stop() {
      stopped = true;
    },
  };
}
