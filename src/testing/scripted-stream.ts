import type { ServerResponse } from 'node:http';
import type { ScriptedTurn } from './scripted-turn';

/** A non-streamed completion as the scripted model builds it; a stream is cut from the same body. */
export interface CompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    finish_reason: string;
    message: {
      role: 'assistant';
      content: string | null;
      reasoning_content?: string;
      refusal?: string;
      tool_calls?: Array<{ id: string; type: string; function: object }>;
    };
  }>;
  usage?: object;
}

/** Splits text into `count` pieces of about equal length (at least one, possibly empty). */
function pieces(text: string, count: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += size) parts.push(text.slice(start, start + size));
  return parts.length > 0 ? parts : [''];
}

/**
 * Sends a scripted completion the way a streaming endpoint does (`stream: true`): Server-Sent Events of
 * `chat.completion.chunk`s, the reasoning (if any, as `reasoning_content` deltas) and then the text each in
 * `streamChunks` pieces `chunkDelayMs` apart, the tool calls in one chunk, then the finish reason, the usage (when
 * asked for with `stream_options.include_usage`) and `[DONE]`. With `breakAfterChunks` the connection is cut after
 * that many text chunks, like an endpoint that fails mid-answer.
 */
export async function sendStream(
  response: ServerResponse,
  body: CompletionBody,
  turn: ScriptedTurn,
  includeUsage: boolean,
): Promise<void> {
  const { id, created, model } = body;
  const choice = body.choices[0]!;
  const write = (delta: object, finish: string | null = null, extra: object = {}) =>
    response.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
    );
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const count = turn.streamChunks ?? 4;
  const { content, reasoning_content: reasoning, refusal } = choice.message;
  const deltas: object[] = [
    ...(reasoning === undefined ? [] : pieces(reasoning, count).map((text) => ({ reasoning_content: text }))),
    ...(content === null ? [] : pieces(content, count).map((text) => ({ content: text }))),
    ...(refusal === undefined ? [] : pieces(refusal, count).map((text) => ({ refusal: text }))),
  ];
  // A reply with no text at all (tool calls only) still opens with the role, as OpenAI's streams do.
  if (deltas.length === 0) deltas.push({ content: null });
  for (const [index, delta] of deltas.entries()) {
    if (response.destroyed) return;
    write(index === 0 ? { role: 'assistant', ...delta } : delta);
    if (turn.chunkDelayMs) await new Promise((resolve) => setTimeout(resolve, turn.chunkDelayMs));
    if (turn.breakAfterChunks !== undefined && index + 1 >= turn.breakAfterChunks) {
      response.destroy(); // the client sees the connection drop mid-answer
      return;
    }
  }
  const calls = choice.message.tool_calls ?? [];
  if (calls.length > 0) write({ tool_calls: calls.map((call, index) => ({ index, ...call })) });
  write({}, choice.finish_reason);
  if (includeUsage && body.usage) {
    response.write(
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: body.usage })}\n\n`,
    );
  }
  response.end('data: [DONE]\n\n');
}

/** Sends scripted Server-Sent Events as they are (a recorded stream), `delayMs` apart; '[DONE]' is sent bare. */
export async function sendEvents(
  response: ServerResponse,
  events: readonly unknown[],
  delayMs?: number,
): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const event of events) {
    if (response.destroyed) return;
    response.write(`data: ${event === '[DONE]' ? event : JSON.stringify(event)}\n\n`);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
  response.end();
}
