import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { modelDeltaSignal, toolProgressSignal } from '../../shared/messages';
import type { ToolProgressReport } from '../../shared/events';
import { MAX_REPLY_CHARS } from './completion-reader';
import { isJsonObject, type Json } from './server-json';
import { StreamAssembly } from './stream-assembly';

/** How often a sender looks for streamed text to send: the first batch of a call goes out this soon. */
export const DELTA_INTERVAL_MS = 100;
/**
 * Signals per second one run's streamed text may use on average, after a burst of {@link DELTA_BURST}: each batch is
 * one signal, a billed engine action and a history event. A batch every 100 ms cost a run streaming for a minute 600
 * actions; now batches grow as text keeps coming (the first ones still go out at once), and the call's last batch
 * always goes (the text adds up to the thought), borrowing from the next second.
 */
export const DELTA_SIGNALS_PER_SECOND = 1;
/** Batches a run may send at once before the rate applies: the start of each call's text shows without delay. */
export const DELTA_BURST = 3;

/** A run's allowance of delta signals: tokens refill at the rate, up to the burst; a call's last batch may go below 0. */
interface Allowance {
  tokens: number;
  at: number;
}
/** Per run (workflow and run ID), in this worker process: a run's calls share its rate, one after another or at once. */
const allowances = new Map<string, Allowance>();
/** Runs idle this long have a full allowance again and are forgotten. */
const IDLE_MS = (DELTA_BURST / DELTA_SIGNALS_PER_SECOND) * 1000;

function allowanceOf(run: string, now: number): Allowance {
  const allowance = allowances.get(run) ?? { tokens: DELTA_BURST, at: now };
  allowance.tokens = Math.min(DELTA_BURST, allowance.tokens + ((now - allowance.at) / 1000) * DELTA_SIGNALS_PER_SECOND);
  allowance.at = now;
  allowances.set(run, allowance);
  return allowance;
}

function forgetIdleRuns(now: number): void {
  for (const [run, allowance] of allowances) if (now - allowance.at > IDLE_MS) allowances.delete(run);
}

/**
 * The activity's own workflow run, to signal. None for an activity started outside a workflow (a standalone activity)
 * or run without a client (a test's mock environment, whose `client` getter throws).
 */
function ownRun(): ReturnType<Client['workflow']['getHandle']> | undefined {
  const context = Context.current();
  const execution = context.info.workflowExecution;
  try {
    return execution ? context.client.workflow.getHandle(execution.workflowId, execution.runId) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Least time between two progress signals of one call: each is a billed engine action and a history event, and a
 * server may send a notification per percent. The latest report waiting when the time comes is the one sent.
 */
export const PROGRESS_SIGNAL_MS = 5_000;

/**
 * Sends a running tool's progress reports to its workflow run, where they become `tool_progress` events: the first at
 * once, then the latest at most every {@link PROGRESS_SIGNAL_MS}. A preview, like streamed text: one that cannot be
 * delivered is dropped, and the call's result follows anyway. `stop()` when the call ends drops what is waiting.
 */
export function progressSender(callId: string, intervalMs = PROGRESS_SIGNAL_MS) {
  const handle = ownRun();
  let waiting: ToolProgressReport | undefined;
  let timer: NodeJS.Timeout | undefined;
  const send = () => {
    timer = undefined;
    if (!waiting || !handle) return;
    handle.signal(toolProgressSignal, waiting).catch(() => undefined);
    waiting = undefined;
    timer = setTimeout(send, intervalMs);
  };
  return {
    push(report: Omit<ToolProgressReport, 'callId'>) {
      waiting = { callId, ...report };
      if (timer === undefined) send();
    },
    stop() {
      clearTimeout(timer);
      waiting = undefined;
    },
  };
}

/**
 * Sends streamed text to the activity's own workflow run in batches, in order, within the run's allowance
 * ({@link DELTA_SIGNALS_PER_SECOND}). Deltas are a preview for subscribers: a batch that cannot be delivered is
 * dropped (the thought event after the call has the whole text).
 */
export function deltaSender(iteration: number, intervalMs = DELTA_INTERVAL_MS) {
  const { info } = Context.current();
  const handle = ownRun();
  const execution = info.workflowExecution;
  const run = execution ? `${execution.workflowId}/${execution.runId}` : '';
  let buffer = '';
  let sending: Promise<void> = Promise.resolve();
  /** Sends the buffer when the run's allowance has a signal for it, or always (`last`: the call's final batch). */
  const flush = (last = false) => {
    if (buffer === '') return;
    const allowance = allowanceOf(run, Date.now());
    if (!last && allowance.tokens < 1) return;
    allowance.tokens -= 1;
    const text = buffer;
    buffer = '';
    if (!handle) return;
    sending = sending.then(() =>
      handle.signal(modelDeltaSignal, { iteration, attempt: info.attempt, text }).catch(() => undefined),
    );
  };
  const timer = setInterval(() => flush(), intervalMs);
  return {
    push(text: string) {
      buffer += text;
    },
    /** Sends what is left and waits until every batch went out, so deltas reach the workflow before the reply. */
    async close() {
      clearInterval(timer);
      flush(true);
      forgetIdleRuns(Date.now());
      await sending;
    },
  };
}

/**
 * One chat completion with `stream: true`, put back together into the body a non-streaming call returns (reasoning
 * deltas included, as `reasoning_content`), or the text of a page sent instead (undefined for a stream with no chunk
 * at all); `onText` gets each piece of text and reasoning as it arrives. Chunks are read as plain
 * JSON, so a server's odd chunk (no choices, no index, arguments as an object) is data, never a TypeError.
 */
export async function streamCompletion(
  openai: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<Json | string | undefined> {
  const { data: stream, response } = await openai.chat.completions
    .create({ ...request, stream: true, stream_options: { include_usage: true } }, { signal })
    .withResponse();
  // A page instead of a stream (a proxy's login or error page): its text is what the reader refuses, by name.
  if (/html/i.test(response.headers.get('content-type') ?? '')) return await response.text();
  const assembly = new StreamAssembly();
  let usage: unknown;
  let head: Json | undefined;
  for await (const raw of stream as AsyncIterable<unknown>) {
    if (!isJsonObject(raw)) continue;
    head ??= { id: raw.id, created: raw.created, model: raw.model };
    if (isJsonObject(raw.usage)) usage = raw.usage;
    const choice: unknown = Array.isArray(raw.choices) ? raw.choices[0] : undefined;
    if (!isJsonObject(choice)) continue;
    // Reasoning is the thought of reasoning models: subscribers see it arrive like any other text.
    const arrived = assembly.add(isJsonObject(choice.delta) ? choice.delta : {}, choice.finish_reason);
    if (assembly.size() > MAX_REPLY_CHARS) {
      // Past the longest reply the loop reads, nothing more is kept or signalled (each batch is a history event):
      // the stream is closed, and the reply reads as cut off, which the model is told.
      assembly.finishReason = 'length';
      break;
    }
    if (arrived !== '') onText(arrived);
  }
  // A body that was not a stream at all (an HTML page) yields no chunk: reported as what it is, not as an empty reply.
  if (head === undefined) return undefined;
  return {
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, finish_reason: assembly.finishReason, message: assembly.message() }],
    ...(usage !== undefined ? { usage } : {}),
  };
}
