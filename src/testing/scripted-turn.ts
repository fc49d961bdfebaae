import type { TokenUsage } from '../shared/cost';

/** A tool call the scripted model makes: `args` is sent as JSON, `rawArguments` verbatim (to script bad JSON). */
export interface ScriptedToolCall {
  name: string;
  args?: unknown;
  rawArguments?: string;
  id?: string;
}

/**
 * A reply sent byte for byte as given, whatever the request asked for (streamed or not): to replay what a real
 * server's documentation shows it sends. `sse` events are sent as `data: <JSON>`, the string '[DONE]' as itself.
 */
export type ScriptedRawResponse =
  | { kind: 'json'; status?: number; body: unknown; headers?: Record<string, string> }
  | { kind: 'text'; status?: number; contentType: string; body: string }
  | { kind: 'sse'; events: unknown[] };

/**
 * One scripted response. A successful turn sets any of `thought`/`content`, `toolCalls` and `answer`; a fault
 * sets `status` (with optional `retryAfter`); `raw` replaces both with a verbatim reply; `delayMs` delays any of them,
 * to script slow or hanging endpoints. How a turn is shaped on the wire depends on the script's personality.
 */
export interface ScriptedTurn {
  /** Assistant text accompanying tool calls (the thought in native mode). */
  thought?: string;
  /** Raw assistant text; in text mode the whole "Thought: ... Action: ..." reply. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** A final answer: the assistant text with no tool call. */
  answer?: string;
  /** A refusal as OpenAI's newer models send it: `message.refusal` with `content: null` (streamed as `delta.refusal`). */
  refusal?: string;
  /** Reply with this HTTP error status instead of a completion. */
  status?: number;
  /** The `retry-after` header sent with a fault. */
  retryAfter?: string;
  /** The error message sent with a fault. */
  errorMessage?: string;
  delayMs?: number;
  /** Usage to report; estimated from the characters when absent. */
  usage?: Partial<TokenUsage>;
  /** Send no `usage` field at all, like some OpenAI-compatible servers. */
  omitUsage?: boolean;
  /** Streamed replies (`stream: true`): the text is sent in this many chunks (default 4)… */
  streamChunks?: number;
  /** …this far apart. */
  chunkDelayMs?: number;
  /** Cut the connection after this many text chunks: a stream that fails mid-answer. */
  breakAfterChunks?: number;
  /** Send this reply verbatim instead of one built from the fields above (`chunkDelayMs` still spaces SSE events). */
  raw?: ScriptedRawResponse;
}

/** A chat-completions request body as the server received it. */
export interface RecordedRequest {
  model: string;
  messages: Array<{ role: string; content?: unknown; tool_calls?: unknown; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stop?: unknown;
  authorization: string | undefined;
  /** Epoch milliseconds when the request arrived, to check retry delays. */
  receivedAt: number;
  /** Epoch milliseconds when the whole response had been sent. */
  respondedAt?: number;
  [key: string]: unknown;
}

/**
 * Computes the next turn from the request (for long or adaptive scripts); `index` counts requests for the model. It
 * may answer with a promise (replay-check's falls back to another endpoint).
 */
export type ScriptedResponder = (request: RecordedRequest, index: number) => ScriptedTurn | Promise<ScriptedTurn>;

/** Text of the last message with this role, for responders that echo what tools returned. */
export function lastMessageOf(request: RecordedRequest, role: string): string {
  const message = [...request.messages].reverse().find((candidate) => candidate.role === role);
  return typeof message?.content === 'string' ? message.content : '';
}
