import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { modelDeltaSignal } from '../../shared/messages';
import { isJsonObject, MAX_REPLY_CHARS, type Json } from './completion-reader';
import { StreamAssembly } from './stream-assembly';

/** How often streamed text is sent to the workflow: each batch is one signal (one history event), never one per token. */
export const DELTA_INTERVAL_MS = 100;

/**
 * Sends streamed text to the activity's own workflow run in batches, in order. Deltas are a preview for
 * subscribers: a batch that cannot be delivered is dropped (the thought event after the call has the whole text).
 */
export function deltaSender(iteration: number, intervalMs = DELTA_INTERVAL_MS) {
  const context = Context.current();
  const { info } = context;
  // Nothing to stream to for an activity started outside a workflow (a standalone activity) or run without a client
  // (a test's mock environment, whose `client` getter throws).
  const execution = info.workflowExecution;
  let handle: ReturnType<Client['workflow']['getHandle']> | undefined;
  try {
    handle = execution ? context.client.workflow.getHandle(execution.workflowId, execution.runId) : undefined;
  } catch {
    handle = undefined;
  }
  let buffer = '';
  let sending: Promise<void> = Promise.resolve();
  const flush = () => {
    if (buffer === '') return;
    const text = buffer;
    buffer = '';
    if (!handle) return;
    sending = sending.then(() =>
      handle.signal(modelDeltaSignal, { iteration, attempt: info.attempt, text }).catch(() => undefined),
    );
  };
  const timer = setInterval(flush, intervalMs);
  return {
    push(text: string) {
      buffer += text;
    },
    /** Sends what is left and waits until every batch went out, so deltas reach the workflow before the reply. */
    async close() {
      clearInterval(timer);
      flush();
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
