import type { Client } from '@temporalio/client';
import type { AgentEvent, EventPage } from '../shared/events';
import { getEventsQuery, waitForEventsUpdate } from '../shared/messages';

/** Options of `events()`. */
export interface EventsOptions {
  /** The seq of the last event already seen: the stream resumes after it (default 0: from the start). */
  after?: number;
  /** Stops following: the iterator ends (a long-poll in flight is abandoned). */
  signal?: AbortSignal;
}

/** An event the client adds when the run no longer holds events after the cursor (see `MAX_EVENTS_HELD`). */
export interface EventsGap {
  type: 'gap';
  /** How many events between the cursor and the next one are gone. */
  missed: number;
  seq: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Follows a run's event stream: pages come from the `getEvents` query, and when there is nothing new the client
 * long-polls the `waitForEvents` update, which completes as soon as the run records an event. Addressed by workflow
 * ID, so it follows continue-as-new (the next run keeps the newest events and their numbers). Ends after the run's
 * `terminated` event, or when the run closed some other way (terminated from outside, timed out).
 */
export async function* followEvents(
  client: Client,
  workflowId: string,
  options: EventsOptions = {},
): AsyncGenerator<AgentEvent | EventsGap, void, undefined> {
  const { signal } = options;
  const handle = client.workflow.getHandle(workflowId);
  let cursor = options.after ?? 0;
  // Set once the run (and its chain) has closed: read what is left, then stop.
  let closed = false;
  while (!signal?.aborted) {
    const page: EventPage = await handle.query(getEventsQuery, { after: cursor });
    const first = page.events[0];
    if (first && first.seq > cursor + 1) yield { type: 'gap', missed: first.seq - cursor - 1, seq: first.seq - 1 };
    for (const event of page.events) {
      yield event;
      cursor = event.seq;
    }
    if (page.ended || (closed && cursor >= page.head)) return;
    if (cursor < page.head) continue; // more than one page was waiting
    try {
      const wait = () => handle.executeUpdate(waitForEventsUpdate, { args: [{ after: cursor }] });
      const news = await (signal ? client.withAbortSignal(signal, wait) : wait());
      if (news.handingOver) await sleep(50, signal); // the next run starts in a moment
    } catch {
      if (signal?.aborted) return;
      // A closed run takes no updates; a running one refused this poll while handing over, or the server's cap on
      // updates in flight was reached: ask again shortly.
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') closed = true;
      else await sleep(200, signal);
    }
  }
}
