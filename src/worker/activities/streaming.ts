import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { modelDeltaSignal } from '../../shared/messages';

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

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A tool call being put together from a stream's pieces. */
interface CallPieces {
  id: string;
  name: string;
  args: string;
}

/**
 * Adds one streamed tool-call piece. Pieces are keyed by `index`; servers that send none send each call whole or
 * start a new call with a new ID or name, so a piece without an index continues the latest call unless it names one.
 */
function addCallPiece(calls: CallPieces[], piece: Json): void {
  const fn = isObject(piece.function) ? piece.function : {};
  const index =
    typeof piece.index === 'number' && Number.isInteger(piece.index) && piece.index >= 0 ? piece.index : undefined;
  const latest = calls[calls.length - 1];
  const startsNew =
    latest === undefined ||
    (text(piece.id) !== '' && text(piece.id) !== latest.id) ||
    (text(fn.name) !== '' && latest.name !== '');
  // Ollama numbers every whole call 0: a piece at a taken index with another ID is a new call.
  const taken = index === undefined ? undefined : calls[index];
  const clash = taken !== undefined && text(piece.id) !== '' && taken.id !== '' && taken.id !== text(piece.id);
  const position = index !== undefined && !clash ? index : startsNew ? calls.length : calls.length - 1;
  const call = (calls[position] ??= { id: '', name: '', args: '' });
  if (text(piece.id) !== '') call.id = text(piece.id);
  call.name += text(fn.name);
  // Some servers stream arguments as an already-parsed object: it is the whole of them.
  call.args +=
    typeof fn.arguments === 'string' ? fn.arguments : fn.arguments == null ? '' : JSON.stringify(fn.arguments);
}

/**
 * One chat completion with `stream: true`, put back together into the body a non-streaming call returns (reasoning
 * deltas included, as `reasoning_content`); `onText` gets each piece of text as it arrives. Chunks are read as plain
 * JSON, so a server's odd chunk (no choices, no index, arguments as an object) is data, never a TypeError.
 */
export async function streamCompletion(
  openai: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<Json | undefined> {
  const stream = await openai.chat.completions.create(
    { ...request, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let content = '';
  let reasoning = '';
  let finish = 'stop';
  let usage: unknown;
  let head: Json | undefined;
  const calls: CallPieces[] = [];
  for await (const raw of stream as AsyncIterable<unknown>) {
    if (!isObject(raw)) continue;
    head ??= { id: raw.id, created: raw.created, model: raw.model };
    if (isObject(raw.usage)) usage = raw.usage;
    const choice: unknown = Array.isArray(raw.choices) ? raw.choices[0] : undefined;
    if (!isObject(choice)) continue;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const piece = text(delta.content);
    if (piece !== '') {
      content += piece;
      onText(piece);
    }
    // Reasoning is the thought of reasoning models: subscribers see it arrive like any other text.
    const thinking = text(delta.reasoning_content) || text(delta.reasoning);
    if (thinking !== '') {
      reasoning += thinking;
      onText(thinking);
    }
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls) if (isObject(call)) addCallPiece(calls, call);
    if (text(choice.finish_reason) !== '') finish = text(choice.finish_reason);
  }
  // A body that was not a stream at all (an HTML page) yields no chunk: reported as what it is, not as an empty reply.
  if (head === undefined) return undefined;
  return {
    ...head,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        finish_reason: finish,
        message: {
          role: 'assistant',
          content,
          ...(reasoning !== '' ? { reasoning_content: reasoning } : {}),
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.args },
                })),
              }
            : {}),
        },
      },
    ],
    ...(usage !== undefined ? { usage } : {}),
  };
}
