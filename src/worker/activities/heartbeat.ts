import { Context } from '@temporalio/activity';

/** How often long activities heartbeat; cancellation only reaches an activity through a heartbeat. */
export const HEARTBEAT_INTERVAL_MS = 2_000;

/**
 * Runs `work` while heartbeating, so that a run's cancellation or timeout reaches the activity and aborts the
 * model request or tool through the signal instead of leaving it running for its full timeout. What the work last
 * `report`s (a tool's progress) goes with every heartbeat from then on: the Temporal UI shows it as the pending
 * activity's heartbeat details.
 */
export async function withHeartbeats<T>(
  work: (signal: AbortSignal, report: (details: unknown) => void) => Promise<T>,
): Promise<T> {
  const context = Context.current();
  let details: unknown;
  const beat = () => context.heartbeat(details);
  // Local activities cannot heartbeat; their cancellation arrives with the workflow task instead.
  const timer = context.info.isLocal ? undefined : setInterval(beat, HEARTBEAT_INTERVAL_MS);
  const report = (next: unknown) => {
    details = next;
    if (timer) beat(); // the SDK sends at most one per throttle interval, the latest
  };
  try {
    // Racing the cancellation ends the activity as cancelled even when the work ignores its signal.
    return await Promise.race([work(context.cancellationSignal, report), context.cancelled]);
  } finally {
    clearInterval(timer);
  }
}
