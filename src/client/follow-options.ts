/*
 * What following a run's events takes, and what it yields besides the run's own events: shared by events.ts and the
 * history follower it hands runs to, so the follower does not import events.ts back.
 */

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
