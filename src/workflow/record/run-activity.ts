import type { PendingDecisions } from '../../shared/approvals';
import type { AgentStatus } from '../../shared/types';

/**
 * What the run is doing now (its phase and the tools running) and what it last published about it. Read anywhere;
 * written only through the functions below.
 */
export interface RunActivity {
  readonly phase: AgentStatus['state'];
  readonly runningTools: readonly string[];
  /** Last published status, so unchanged values are not upserted again. */
  readonly publishedStatus: string;
  /** The pending items last written to the memo; undefined until this run first writes it. */
  readonly publishedPending: string | undefined;
}

/** Where a run is. Derived here only; the getStatus query, AgentStatus and the UI's details all present this. */
export type RunPhase = AgentStatus['state'];

/**
 * The one derivation of a run's phase from what it does and what it waits for (`ApprovalBook.snapshot()`): waiting
 * for a person takes precedence over the loop's own phase.
 */
export function phaseOf(activity: RunActivity, pending: PendingDecisions): RunPhase {
  if (activity.phase === 'completed') return 'completed';
  // Parallel calls may run and wait for a person at the same time: the person is what the run waits on.
  if (pending.question) return 'awaiting_input';
  // A budget request is an approval too: raise the limit, or stop.
  if (pending.approvals.length > 0 || pending.budget) return 'awaiting_approval';
  return activity.phase;
}

type Writable = {
  -readonly [Key in keyof RunActivity]: RunActivity[Key] extends readonly (infer Item)[] ? Item[] : RunActivity[Key];
};

const writable = (activity: RunActivity): Writable => activity as Writable;

/** A run that is about to think, having published nothing yet. */
export function createActivity(): RunActivity {
  return { phase: 'thinking', runningTools: [], publishedStatus: '', publishedPending: undefined };
}

/** Enters a phase of the loop. */
export function enterPhase(activity: RunActivity, phase: AgentStatus['state']): void {
  writable(activity).phase = phase;
}

/** A tool call's activity started. */
export function toolStarted(activity: RunActivity, tool: string): void {
  writable(activity).runningTools.push(tool);
}

/** A tool call's activity settled. */
export function toolSettled(activity: RunActivity, tool: string): void {
  const running = writable(activity).runningTools;
  running.splice(running.indexOf(tool), 1);
}

/** Remembers the status and pending tools just upserted. */
export function notePublishedStatus(activity: RunActivity, signature: string): void {
  writable(activity).publishedStatus = signature;
}

/** Remembers the pending items just written to the memo. */
export function notePublishedPending(activity: RunActivity, ids: string): void {
  writable(activity).publishedPending = ids;
}
