export { payloadDecoder, type PayloadDecoder } from '../client/payloads';
import type { temporal } from '@temporalio/proto';

/** One run's history, with the workflow ID it ran under when the file or the server says it. */
export interface HistoryInput {
  workflowId?: string;
  history: temporal.api.history.v1.IHistory;
}

type Started = temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes;

/** The start event's attributes of a run's history. */
export function startOf(input: HistoryInput): Started {
  const started = input.history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error('a history must begin with its WorkflowExecutionStarted event');
  return started;
}

/** The run's own ID and the run it continues ('' when none or unknown). */
function links(input: HistoryInput): { runId: string; previous: string } {
  const started = startOf(input);
  return { runId: started.originalExecutionRunId ?? '', previous: started.continuedExecutionRunId ?? '' };
}

/**
 * A chain's runs oldest first, whatever order they came in: each run's start event names the run it continues. A
 * run whose predecessor is missing starts a new stretch, in the order given, so a chain with a gap keeps every run.
 */
export function orderChain(runs: readonly HistoryInput[]): HistoryInput[] {
  const ids = new Set(runs.map((run) => links(run).runId).filter((id) => id !== ''));
  const next = new Map<string, HistoryInput>();
  for (const run of runs) if (links(run).previous !== '') next.set(links(run).previous, run);
  const ordered: HistoryInput[] = [];
  const placed = new Set<HistoryInput>();
  for (const head of runs.filter((run) => !ids.has(links(run).previous))) {
    for (let run: HistoryInput | undefined = head; run && !placed.has(run); run = next.get(links(run).runId)) {
      ordered.push(run);
      placed.add(run);
    }
  }
  // Only a cycle (a corrupt set of files) leaves runs unplaced; they are kept rather than dropped.
  return [...ordered, ...runs.filter((run) => !placed.has(run))];
}

/**
 * Groups histories into continue-as-new chains, each oldest run first, chains in the order their first file came.
 * Runs belong together when their start events name the same first run; histories from servers that do not record
 * it are joined by the run each one continues.
 */
export function groupChains(histories: readonly HistoryInput[]): HistoryInput[][] {
  const byRun = new Map(histories.map((input) => [links(input).runId, input]));
  const keyOf = (input: HistoryInput, seen = new Set<HistoryInput>()): string => {
    const started = startOf(input);
    if (started.firstExecutionRunId) return started.firstExecutionRunId;
    const previous = byRun.get(links(input).previous);
    if (previous && !seen.has(previous)) return keyOf(previous, seen.add(input));
    return links(input).previous || links(input).runId || `#${histories.indexOf(input)}`;
  };
  const chains = new Map<string, HistoryInput[]>();
  for (const input of histories) {
    const key = keyOf(input);
    chains.set(key, [...(chains.get(key) ?? []), input]);
  }
  return [...chains.values()].map(orderChain);
}
