import type { Client } from '@temporalio/client';
import { abortable, sleepUnlessAborted } from './abortable';
import { EVENT_WAITS_FULL, type AgentEvent, type EventPage } from '../shared/events';
import { getEventsQuery, waitForEventsUpdate } from '../shared/messages';
import { causeMessages } from './errors';
import { chainRunIds } from './run-chain';
import { answersLater, QUERY_ANSWER_WITHIN_MS, queryRun, queryRunWith } from './query';
import { eventsOfClosedRun, readClosedRun } from './closed-run';
import { followByHistory, type QueryRead } from './history-follower';
import type { EventsGap, EventsOptions } from './follow-options';

export type { EventsGap, EventsOptions } from './follow-options';

/** How long a follower refused a wait (the run's waits are full) reads by query, and how often (MAX_EVENT_WAITS). */
const CROWDED_BACKOFF_MS = 60_000;
const CROWDED_POLL_MS = 2_000;

/** Every event one run of the chain holds after `after` and before `until`, page by page. */
async function eventsOfRun(
  client: Client,
  workflowId: string,
  runId: string,
  after: number,
  until: number,
): Promise<EventPage> {
  const handle = client.workflow.getHandle(workflowId, runId);
  const first = await queryRun(handle, getEventsQuery, { after });
  const events = [...first.events];
  let last = events.at(-1)?.seq ?? after;
  while (last < Math.min(first.head, until - 1)) {
    const next = await handle.query(getEventsQuery, { after: last });
    if (next.events.length === 0) break;
    events.push(...next.events);
    last = next.events.at(-1)!.seq;
  }
  return { ...first, events: events.filter((event) => event.seq < until) };
}

/**
 * The events after `after` and before `until` that the chain's earlier runs still hold: a hand-over carries only the
 * newest events, so a consumer that fell behind finds the rest there. Closed runs answer the query through a worker,
 * which replays them. Newest run first, stopping at the run that still holds the event right after the cursor.
 */
async function earlierEvents(client: Client, workflowId: string, after: number, until: number): Promise<AgentEvent[]> {
  const runIds = await chainRunIds(client, workflowId);
  const found = new Map<number, AgentEvent>();
  for (const runId of runIds.slice(0, -1).reverse()) {
    const page = await eventsOfRun(client, workflowId, runId, after, until);
    for (const event of page.events) if (!found.has(event.seq)) found.set(event.seq, event);
    if (page.oldest <= after + 1) break;
  }
  return [...found.values()].sort((a, b) => a.seq - b.seq);
}

/** How often a follower asks again while no worker answers its run's queries (a deploy, a crashed worker). */
const NO_WORKER_POLL_MS = 2_000;

/** Times a closed run's query is asked again when no worker took it: a closed run is read by a worker's replay. */
const CLOSED_RUN_RETRIES = 5;

/**
 * How long a closed run's events query waits for a worker's replay before the events are rebuilt from its history:
 * short, since a closed run's worker is often gone for good (`run` exited).
 */
const CLOSED_RUN_ANSWER_WITHIN_MS = 3_000;

/**
 * A completed or failed run's events, from its history, for when no worker answers: all of them from the start; after
 * a cursor from the live stream (whose numbers the rebuilt ones do not share), only its end (the final answer, if it
 * gave one, and `terminated`), numbered on from the cursor.
 */
async function rebuiltPage(client: Client, workflowId: string, cursor: number): Promise<EventPage | undefined> {
  const closed = await readClosedRun(client, workflowId);
  if (!closed) return undefined;
  const events = eventsOfClosedRun(closed.trace, (await closed.start()).query, closed.failed, closed.closedAt);
  const tail =
    cursor === 0
      ? events
      : events
          .filter(
            (event, index) =>
              event.type === 'terminated' || (event.type === 'final_answer' && index === events.length - 2),
          )
          .map((event, index) => ({ ...event, seq: cursor + index + 1 }));
  return { events: tail, head: tail.at(-1)!.seq, oldest: 1, ended: true };
}

/**
 * The run's events after `cursor`. While no worker answers the run's queries (workers restarting during a deploy,
 * or one busy past the query's deadline), the follower waits and asks again, as its long-poll would have: for as
 * long as the run runs. A closed run is asked a few times, unless it completed or failed: its events are then rebuilt
 * from its history at once (see {@link eventsOfClosedRun}). Any other failure is thrown. Undefined when `signal`
 * aborted meanwhile, which also abandons a query in flight.
 */
export async function readPage(
  client: Client,
  workflowId: string,
  cursor: number,
  closed: boolean,
  signal: AbortSignal | undefined,
): Promise<EventPage | undefined> {
  const handle = client.workflow.getHandle(workflowId);
  const answerWithinMs = closed ? CLOSED_RUN_ANSWER_WITHIN_MS : QUERY_ANSWER_WITHIN_MS;
  for (let closedRetries = 0; ;) {
    try {
      return await queryRunWith(handle, { signal, answerWithinMs }, getEventsQuery, { after: cursor });
    } catch (error) {
      if (signal?.aborted) return undefined;
      // A stream outlives slow moments (no worker answering, a run just handed over): waited out while the run runs.
      if (!answersLater(error)) throw error;
      const running = (await handle.describe()).status.name === 'RUNNING';
      if (!running) {
        const rebuilt = await rebuiltPage(client, workflowId, cursor);
        if (rebuilt) return rebuilt;
        if (++closedRetries > CLOSED_RUN_RETRIES) throw error;
      }
      await sleepUnlessAborted(NO_WORKER_POLL_MS, signal);
      if (signal?.aborted) return undefined;
    }
  }
}

/**
 * A page's events after `cursor`, with a gap wherever events are gone: this run no longer holds the events right
 * after the cursor, so earlier runs of the chain are asked for them; what none holds is a gap.
 */
export async function eventsAfter(
  client: Client,
  workflowId: string,
  page: EventPage,
  cursor: number,
): Promise<Array<AgentEvent | EventsGap>> {
  const out: Array<AgentEvent | EventsGap> = [];
  const missed = page.oldest > cursor + 1 ? await earlierEvents(client, workflowId, cursor, page.oldest) : [];
  for (const event of [...missed, ...page.events]) {
    if (event.seq <= cursor) continue;
    if (event.seq > cursor + 1) out.push({ type: 'gap', missed: event.seq - cursor - 1, seq: event.seq - 1 });
    out.push(event);
    cursor = event.seq;
  }
  if (page.oldest > cursor + 1) {
    // Gone everywhere, and this run holds nothing after the cursor yet: skip to where it starts.
    out.push({ type: 'gap', missed: page.oldest - cursor - 1, seq: page.oldest - 1 });
  }
  return out;
}

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
  // Running runs are followed through their history; closed ones by query.
  const read: QueryRead = async (cursor, closed) => {
    const page = await readPage(client, workflowId, cursor, closed, options.signal);
    return page && { events: await eventsAfter(client, workflowId, page, cursor), head: page.head, ended: page.ended };
  };
  const after = yield* followByHistory(client, workflowId, options, read);
  if (after === undefined) return;
  yield* followByQueries(client, workflowId, { ...options, after });
}

/** Follows a run by the `getEvents` query and the `waitForEvents` long-poll (where history cannot be followed). */
async function* followByQueries(
  client: Client,
  workflowId: string,
  options: EventsOptions = {},
): AsyncGenerator<AgentEvent | EventsGap, void, undefined> {
  const { signal } = options;
  const handle = client.workflow.getHandle(workflowId);
  let cursor = options.after ?? 0;
  // Set once the run (and its chain) has closed: read what is left, then stop.
  let closed = (await handle.describe()).status.name !== 'RUNNING';
  // Until then, read by query instead of waiting by update: the run released this follower's wait for newer ones.
  let queryOnlyUntil = 0;
  while (!signal?.aborted) {
    const page = await readPage(client, workflowId, cursor, closed, signal);
    if (!page) return; // aborted while no worker answered
    for (const event of await eventsAfter(client, workflowId, page, cursor)) {
      yield event;
      cursor = event.seq;
    }
    if (page.ended || (closed && cursor >= page.head)) return;
    if (cursor < page.head) continue; // more than one page was waiting
    if (Date.now() < queryOnlyUntil) {
      await sleepUnlessAborted(CROWDED_POLL_MS, signal);
      continue;
    }
    try {
      const wait = () => handle.executeUpdate(waitForEventsUpdate, { args: [{ after: cursor }] });
      const news = await abortable(client, signal, wait);
      if (news.handingOver) await sleepUnlessAborted(50, signal); // the next run starts in a moment
    } catch (error) {
      if (signal?.aborted) return;
      // The run has its most followers waiting: read by query (nothing in history) for a while instead.
      if (causeMessages(error).includes(EVENT_WAITS_FULL)) {
        queryOnlyUntil = Date.now() + CROWDED_BACKOFF_MS;
        continue;
      }
      // A closed run takes no updates; a running one refused this poll while handing over, or the server's cap on
      // updates in flight was reached: ask again shortly.
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') closed = true;
      else await sleepUnlessAborted(200, signal);
    }
  }
}
