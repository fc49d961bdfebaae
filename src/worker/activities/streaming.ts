import { Context } from '@temporalio/activity';
import type OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { modelDeltaSignal } from '../../shared/messages';

/** How often streamed text is sent to the workflow: each batch is one signal (one history event), never one per token. */
export const DELTA_INTERVAL_MS = 100;

/**
 * Sends streamed text to the activity's own workflow run in batches, in order. Deltas are a preview for
 * subscribers: a batch that cannot be delivered is dropped (the thought event after the call has the whole text).
 */
export function deltaSender(iteration: number, intervalMs = DELTA_INTERVAL_MS) {
  const { info, client } = Context.current();
  // Undefined for an activity started outside a workflow (a standalone activity): nothing to stream to.
  const execution = info.workflowExecution;
  const handle = execution ? client.workflow.getHandle(execution.workflowId, execution.runId) : undefined;
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
 * One chat completion with `stream: true`, put back together into the completion the non-streaming call returns;
 * `onText` gets each piece of text as it arrives.
 */
export async function streamCompletion(
  openai: OpenAI,
  request: ChatCompletionCreateParamsNonStreaming,
  signal: AbortSignal,
  onText: (text: string) => void,
): Promise<ChatCompletion> {
  const stream = await openai.chat.completions.create(
    { ...request, stream: true, stream_options: { include_usage: true } },
    { signal },
  );
  let content = '';
  let finish: ChatCompletion.Choice['finish_reason'] = 'stop';
  let usage: ChatCompletion['usage'];
  let head = { id: '', created: 0, model: request.model };
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for await (const chunk of stream) {
    if (head.id === '') head = { id: chunk.id, created: chunk.created, model: chunk.model };
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (choice.delta.content) {
      content += choice.delta.content;
      onText(choice.delta.content);
    }
    // A tool call arrives in pieces keyed by its index: the first names it, the rest append to its arguments.
    for (const piece of choice.delta.tool_calls ?? []) {
      const call = (calls[piece.index] ??= { id: '', name: '', args: '' });
      if (piece.id) call.id = piece.id;
      call.name += piece.function?.name ?? '';
      call.args += piece.function?.arguments ?? '';
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  const toolCalls = calls.map((call) => ({
    id: call.id,
    type: 'function' as const,
    function: { name: call.name, arguments: call.args },
  }));
  return {
    ...head,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        finish_reason: finish,
        logprobs: null,
        message: {
          role: 'assistant',
          content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
      },
    ],
    ...(usage ? { usage } : {}),
  };
}
