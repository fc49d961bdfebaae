import { readFileSync } from 'node:fs';
import type { LoadedDataConverter, Payload } from '@temporalio/common';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';

/** One run's history, with the workflow ID it ran under when the file says it. */
export interface HistoryInput {
  workflowId?: string;
  history: temporal.api.history.v1.IHistory;
}

/** Turns a history payload into its value: the codecs (e.g. encryption) last to first, then the converter. */
export type PayloadDecoder = (payload: Payload | null | undefined) => Promise<unknown>;

/** A decoder with a client's or worker's data converter. */
export function payloadDecoder(converter: LoadedDataConverter): PayloadDecoder {
  return async (payload) => {
    if (!payload) return undefined;
    let payloads = [payload];
    for (const codec of [...converter.payloadCodecs].reverse()) payloads = await codec.decode(payloads);
    return converter.payloadConverter.fromPayload(payloads[0] as Payload);
  };
}

/**
 * Reads a history file: the project's own `{ workflowId, history }` (test/histories), or the JSON that
 * `temporal workflow show --output json` and the Temporal UI's download write (`{ events: [...] }`).
 */
export function loadHistoryFile(file: string): HistoryInput {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as {
    workflowId?: unknown;
    history?: unknown;
    events?: unknown;
  };
  if (parsed.history && typeof parsed.history === 'object') {
    return {
      ...(typeof parsed.workflowId === 'string' ? { workflowId: parsed.workflowId } : {}),
      history: temporal.api.history.v1.History.fromObject(parsed.history),
    };
  }
  if (Array.isArray(parsed.events)) return { history: historyFromJSON(parsed) };
  throw new Error(`${file} is not a workflow history (no "events")`);
}

type Started = temporal.api.history.v1.IWorkflowExecutionStartedEventAttributes;

/** The start event's attributes of a run's history. */
export function startOf(input: HistoryInput): Started {
  const started = input.history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error('a history must begin with its WorkflowExecutionStarted event');
  return started;
}

/**
 * Groups histories into continue-as-new chains, each oldest run first: a run's start event names the chain's first
 * run and the run it continues, and its own run ID (`originalExecutionRunId`).
 */
export function groupChains(histories: readonly HistoryInput[]): HistoryInput[][] {
  const chains = new Map<string, HistoryInput[]>();
  for (const input of histories) {
    const started = startOf(input);
    const key = started.firstExecutionRunId ?? started.originalExecutionRunId ?? String(chains.size);
    chains.set(key, [...(chains.get(key) ?? []), input]);
  }
  return [...chains.values()].map((runs) => {
    const ordered: HistoryInput[] = [];
    let previous: string | null | undefined = undefined;
    const left = [...runs];
    while (left.length > 0) {
      const index = left.findIndex((run) => (startOf(run).continuedExecutionRunId || undefined) === previous);
      // A chain with a run missing keeps the remaining runs in the order given.
      const [next] = left.splice(index >= 0 ? index : 0, 1);
      ordered.push(next!);
      previous = startOf(next!).originalExecutionRunId ?? undefined;
    }
    return ordered;
  });
}
