import { allHandlersFinished, CancellationScope, condition, setHandler } from '@temporalio/workflow';
import {
  eventText,
  type AgentEvent,
  type AgentEventBody,
  type CarriedEvents,
  type EventPage,
  EVENT_WAITS_FULL,
  type EventsWaitResult,
  type ModelDelta,
  type ToolProgressReport,
} from '../../shared/events';
import type { TerminationReason } from '../../shared/termination-reasons';
import type { CostSummary } from '../../shared/events';
import {
  getEventsQuery,
  modelDeltaSignal,
  publishEventsSignal,
  toolProgressSignal,
  waitForEventsUpdate,
} from '../../shared/messages';

/** Most events a run holds in memory; older ones are dropped (the trace keeps the full record). */
export const MAX_EVENTS_HELD = 1000;
/** Most bytes (as JSON characters) of events one `getEvents` page carries: a query answer must stay well under 2 MB. */
const PAGE_MAX_CHARS = 256 * 1024;
/**
 * Most characters of the newest events handed to the next run: enough for a consumer that keeps up (it resumes from
 * the next run's memory). A consumer further behind reads the rest from the earlier runs (`followEvents`); the
 * carried events are recorded twice per hand-over (its command and the next run's start), and at 128 KiB they were
 * most of a long chain's history.
 */
const CARRIED_MAX_CHARS = 16 * 1024;

/** Newest events first until `maxChars` is reached, returned oldest first. */
function newestWithin(items: readonly AgentEvent[], maxChars: number): AgentEvent[] {
  const kept: AgentEvent[] = [];
  let chars = 0;
  for (let index = items.length - 1; index >= 0; index--) {
    chars += JSON.stringify(items[index]).length;
    if (chars > maxChars) break;
    kept.unshift(items[index]!);
  }
  return kept;
}

/**
 * Most `waitForEvents` long-polls a run keeps in flight. Temporal allows 10 updates in flight per run and decisions,
 * answers, budget decisions and messages are updates too; a follower that goes away (a closed tab, a Ctrl-C'd
 * `events`) cannot withdraw its poll, which holds a slot until the run's next event, and a waiting run has none. The
 * validator refuses a fifth (nothing enters history): that follower reads with the `getEvents` query instead.
 * Refusing rather than releasing an older wait matters: every completed update counts toward Temporal's 2,000 per
 * run, and releasing would let anyone complete as many as they open.
 */
export const MAX_EVENT_WAITS = 4;
/** Waits one run takes in all, at most, so followers can never use up the run's 2,000 updates; then: query only. */
export const MAX_EVENT_WAITS_PER_RUN = 1_000;

/** Streamed characters one iteration's previews may carry: the worker reads no longer reply (MAX_REPLY_CHARS). */
export const MAX_STREAMED_CHARS = 200_000;

/**
 * Progress events one tool call may add from its reports (its activity sends one every few seconds at most): anyone
 * who can signal the run could send them, and they must not push the run's real events out of the log.
 */
export const MAX_PROGRESS_EVENTS_PER_CALL = 50;
/** Longest message a progress event keeps: a line, not a document. */
const EVENT_LINE_CHARS = 500;

/**
 * A run's ordered event stream, kept in workflow memory (not history). Sequence numbers continue across
 * continue-as-new; recording an event issues no command, so adding events never changes how a run replays.
 */
export class EventLog {
  private readonly items: AgentEvent[];
  private next: number;
  private hasEnded = false;
  private handing = false;
  /** Long-polls in flight now, and taken by this run in all. */
  private waitsInFlight = 0;
  private waitsTaken = 0;
  /** Whether events are written into history for followers (`publishEvents`), and the newest one written so far. */
  private publishing: boolean;
  private publishedHead: number;
  /** The newest attempt that streamed text, per iteration. */
  private readonly streamed = new Map<number, number>();
  /** Characters of streamed text taken, per iteration: one call's worth at most. */
  private readonly streamedChars = new Map<number, number>();
  /**
   * Whether a delta for this iteration may be taken (set by the loop): anyone who can signal the run can send one, so
   * only a run that streams takes them, only for the call in flight. Unset: every one is taken.
   */
  private acceptsDelta: ((iteration: number) => boolean) | undefined;
  /** The tool calls running now (started, not finished), by call ID: their tool, and the progress events they added. */
  private readonly running = new Map<string, { tool: string; reports: number }>();

  /** The run has ended: waiting consumers are released and the last page says so. */
  get ended(): boolean {
    return this.hasEnded;
  }

  /** The run is about to continue as new: waiting consumers are released to ask the next run. */
  get handingOver(): boolean {
    return this.handing;
  }

  /** Releases waiting consumers to ask the next run, which keeps the newest events and their numbering. */
  handOver(): void {
    this.handing = true;
  }

  /** From now on, a delta for an iteration is taken only when `accepts` says so (see `acceptsDelta`). */
  acceptDeltasWhen(accepts: (iteration: number) => boolean): void {
    this.acceptsDelta = accepts;
  }

  constructor(
    private readonly run: number,
    carried?: CarriedEvents,
  ) {
    this.items = [...(carried?.items ?? [])];
    this.next = carried?.next ?? 1;
    this.publishing = carried?.publishing === true;
    // The carried events are in this run's start event already: a follower reads them there.
    this.publishedHead = this.next - 1;
  }

  /** A follower asked for the events in history: the next model call's input carries them (see `unpublished`). */
  publish(): void {
    this.publishing = true;
  }

  /**
   * The events recorded since the last call to this, to ride on the next model call's input; undefined when nobody
   * asked for them. Events older than the log holds are gone: the follower sees a gap, as a query's reader would.
   */
  unpublished(): AgentEvent[] | undefined {
    if (!this.publishing) return undefined;
    const events = this.items.filter((event) => event.seq > this.publishedHead);
    this.publishedHead = this.head;
    return events;
  }

  /** Seq of the newest event (0 before the first). */
  get head(): number {
    return this.next - 1;
  }

  emit(body: AgentEventBody): void {
    if (body.type === 'tool_started') this.running.set(body.callId, { tool: body.tool, reports: 0 });
    if (body.type === 'tool_finished') this.running.delete(body.callId);
    // Workflow time: replay records the same `at`.
    this.items.push({ ...body, seq: this.next, at: new Date().toISOString(), run: this.run });
    this.next += 1;
    if (this.items.length > MAX_EVENTS_HELD) this.items.splice(0, this.items.length - MAX_EVENTS_HELD);
  }

  /** Streamed model text; a batch from a newer attempt of the same call first tells consumers to start over. */
  delta(delta: unknown): void {
    const { iteration, attempt, text } = (delta ?? {}) as Partial<ModelDelta>;
    // Deltas are a preview: a malformed one is dropped, the final thought event carries the whole text anyway.
    if (!Number.isSafeInteger(iteration) || !Number.isSafeInteger(attempt) || typeof text !== 'string') return;
    if (this.acceptsDelta) {
      // A signal sender cannot push the run's real events out of the log with fake previews.
      const taken = this.streamedChars.get(iteration!) ?? 0;
      if (!this.acceptsDelta(iteration!) || taken + text.length > MAX_STREAMED_CHARS) return;
      this.streamedChars.set(iteration!, taken + text.length);
    }
    const previous = this.streamed.get(iteration!);
    if (previous !== undefined && attempt! > previous)
      this.emit({ type: 'thought_reset', iteration: iteration!, attempt: attempt! });
    this.streamed.set(iteration!, Math.max(attempt!, previous ?? 0));
    this.emit({ type: 'thought_delta', iteration: iteration!, attempt: attempt!, text: eventText(text) });
  }

  /**
   * Where a running call stands (its task's state, or its own report), as a `tool_progress` event: dropped for a call
   * that is not running, and past {@link MAX_PROGRESS_EVENTS_PER_CALL}.
   */
  toolProgress(callId: string, fields: { status: string; message?: string; progress?: number; total?: number }): void {
    const call = this.running.get(callId);
    if (!call || call.reports >= MAX_PROGRESS_EVENTS_PER_CALL) return;
    call.reports += 1;
    const { message, ...rest } = fields;
    this.emit({
      type: 'tool_progress',
      callId,
      tool: call.tool,
      ...rest,
      ...(message !== undefined ? { message: eventText(message, EVENT_LINE_CHARS) } : {}),
    });
  }

  /** A running call's progress report, as its activity signals it (see `ToolProgressReport`); a malformed one is dropped. */
  progress(report: unknown): void {
    const { callId, progress, total, message } = (report ?? {}) as Partial<ToolProgressReport>;
    const counted = typeof progress === 'number' && Number.isFinite(progress);
    if (typeof callId !== 'string' || (!counted && typeof message !== 'string')) return;
    this.toolProgress(callId, {
      status: 'working',
      ...(counted ? { progress } : {}),
      ...(typeof total === 'number' && Number.isFinite(total) ? { total } : {}),
      ...(typeof message === 'string' ? { message } : {}),
    });
  }

  /** The stream's last event; consumers waiting for news are answered before the run closes. */
  async end(reason: TerminationReason | 'failed', detail: string | null, cost?: CostSummary): Promise<void> {
    this.emit({
      type: 'terminated',
      reason,
      detail: detail === null ? null : eventText(detail),
      ...(cost ? { cost } : {}),
    });
    this.hasEnded = true;
    // Not cancellable: a cancelled run still answers its waiting consumers with its last event.
    await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
  }

  /** Why a new long-poll is refused (too many in flight, or taken), or null. */
  waitRefusal(): string | null {
    if (this.waitsInFlight >= MAX_EVENT_WAITS)
      return `${EVENT_WAITS_FULL}: ${MAX_EVENT_WAITS} followers already wait; read with the getEvents query`;
    if (this.waitsTaken >= MAX_EVENT_WAITS_PER_RUN)
      return `${EVENT_WAITS_FULL}: this run took ${MAX_EVENT_WAITS_PER_RUN} waits; read with the getEvents query`;
    return null;
  }

  /** Waits for an event after `after`, the run's end or its hand-over. */
  async waitAfter(after: number): Promise<EventsWaitResult> {
    this.waitsInFlight++;
    this.waitsTaken++;
    try {
      await condition(() => this.head > after || this.ended || this.handingOver);
    } finally {
      this.waitsInFlight--;
    }
    return { head: this.head, ended: this.ended, handingOver: this.handingOver };
  }

  /** Events after `after`, oldest first, as many as fit a page. */
  page(after: number): EventPage {
    const events: AgentEvent[] = [];
    let chars = 0;
    for (const event of this.items) {
      if (event.seq <= after) continue;
      chars += JSON.stringify(event).length;
      if (chars > PAGE_MAX_CHARS && events.length > 0) break;
      events.push(event);
    }
    const reachesHead = events.length === 0 ? after >= this.head : events[events.length - 1]!.seq === this.head;
    return { events, head: this.head, oldest: this.items[0]?.seq ?? this.next, ended: this.ended && reachesHead };
  }

  carry(): CarriedEvents {
    return {
      next: this.next,
      items: newestWithin(this.items, CARRIED_MAX_CHARS),
      ...(this.publishing ? { publishing: true } : {}),
    };
  }
}

function checkCursor(input: unknown): void {
  const after = (input as { after?: unknown } | null)?.after;
  if (typeof after !== 'number' || !Number.isSafeInteger(after) || after < 0) {
    throw new TypeError('`after` must be a whole number >= 0: the seq of the last event seen (0 from the start)');
  }
}

/**
 * The `getEvents` query, the `waitForEvents` long-poll update and the `publishEvents` signal, which puts the events
 * on the model calls' inputs for followers that read history.
 */
export function installEventHandlers(log: EventLog): void {
  setHandler(modelDeltaSignal, (delta) => log.delta(delta));
  setHandler(toolProgressSignal, (report) => log.progress(report));
  setHandler(publishEventsSignal, () => log.publish());
  setHandler(getEventsQuery, (input) => {
    checkCursor(input);
    return log.page(input.after);
  });
  setHandler(waitForEventsUpdate, ({ after }): Promise<EventsWaitResult> => log.waitAfter(after), {
    // A rejected update leaves nothing in history; one accepted while handing over would only bounce back.
    validator: (input) => {
      checkCursor(input);
      // A cursor past the newest event would hold one of the run's ten update slots until that many events exist.
      if ((input as { after: number }).after > log.head)
        throw new Error(`\`after\` is past the newest event (${log.head})`);
      if (log.handingOver) throw new Error('the run is continuing as new: ask again');
      const full = log.waitRefusal();
      if (full !== null) throw new Error(full);
    },
  });
}
