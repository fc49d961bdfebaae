import type { ServerResponse } from 'node:http';
import type { ScriptedTurn } from './scripted-turn';

interface CompletionBody {
  id: string;
  created: number;
  model: string;
  choices: Array<{
    finish_reason: string;
    message: { content: string; tool_calls?: Array<{ id: string; type: string; function: object }> };
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
 * `chat.completion.chunk`s, the text in `streamChunks` pieces `chunkDelayMs` apart, the tool calls in one chunk,
 * then the finish reason, the usage (when asked for with `stream_options.include_usage`) and `[DONE]`. With
 * `breakAfterChunks` the connection is cut after that many text chunks, like an endpoint that fails mid-answer.
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
  const chunks = pieces(choice.message.content, turn.streamChunks ?? 4);
  for (const [index, text] of chunks.entries()) {
    if (response.destroyed) return;
    write(index === 0 ? { role: 'assistant', content: text } : { content: text });
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
