import type { TokenUsage } from '../shared/types';

/** A tool call the scripted model makes: `args` is sent as JSON, `rawArguments` verbatim (to script bad JSON). */
export interface ScriptedToolCall {
  name: string;
  args?: unknown;
  rawArguments?: string;
  id?: string;
}

/**
 * One scripted response. A successful turn sets any of `thought`/`content`, `toolCalls` and `answer`; a fault
 * sets `status` (with optional `retryAfter`); `delayMs` delays either, to script slow or hanging endpoints.
 */
export interface ScriptedTurn {
  /** Assistant text accompanying tool calls (the thought in native mode). */
  thought?: string;
  /** Raw assistant text; in text mode the whole "Thought: ... Action: ..." reply. */
  content?: string;
  toolCalls?: ScriptedToolCall[];
  /** A final answer: the assistant text with no tool call. */
  answer?: string;
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
