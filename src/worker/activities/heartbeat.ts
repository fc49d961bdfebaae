import { Context } from '@temporalio/activity';

/** How often long activities heartbeat; cancellation only reaches an activity through a heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Runs `work` while heartbeating, so that a run's cancellation or timeout reaches the activity and aborts the
 * model request or tool through the signal instead of leaving it running for its full timeout.
 */
export async function withHeartbeats<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const context = Context.current();
  // Local activities cannot heartbeat; their cancellation arrives with the workflow task instead.
  const timer = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_INTERVAL_MS);
  try {
    // Racing the cancellation ends the activity as cancelled even when the work ignores its signal.
    return await Promise.race([work(context.cancellationSignal), context.cancelled]);
  } finally {
    clearInterval(timer);
  }
}
