import { ErrorType } from '../../shared/errors';
import type { ModelToolCall } from '../../shared/protocol';
import { errorObjectOf } from './error-body';
import { isJsonObject, textOf, type Json } from './server-json';
import { badResponseMessage, classifyResponse, UnreadableReply, type ModelEndpoint } from './model-errors';

/**
 * A chat completion as the loop reads it, whatever shape the server gave it: text, the reasoning it sent apart, tool
 * calls with string arguments and unique IDs, and the finish reason.
 */
export interface CompletionReply {
  /** The completion's ID; empty when the server sent none. */
  id: string;
  /** The assistant text (may still hold `<think>` blocks; the reply readers take them out). */
  content: string;
  /** Reasoning from `reasoning_content`, `reasoning` or `reasoning_details`; empty when the server sent none. */
  reasoning: string;
  /** Why the model declined (`refusal`), or that a content filter let nothing through; empty when it did not. */
  refusal: string;
  toolCalls: ModelToolCall[];
  finishReason: string | null;
  /** The usage object as reported, unchecked (readUsage checks it). */
  usage: unknown;
  /** The model that answered, when the server said. */
  model?: string;
}

/**
 * Longest reply (text plus tool-call arguments, in characters) the loop reads. A reply is stored in history and sent
 * back in later prompts; a multi-megabyte one used to exceed Temporal's payload limit, time out and be paid for again
 * on every retry.
 */
export const MAX_REPLY_CHARS = 200_000;

/**
 * Message content as text: a string, or an array of parts (`{ type: 'text', text }`) as some servers send it. Parts
 * that are not text (images, refusals) carry nothing the answer reads.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isJsonObject(part) ? textOf(part.text) : textOf(part))).join('');
}

/**
 * A refusal's words: OpenAI's `refusal` field (a stream sends it in pieces, which the caller joins), or refusal parts
 * of a content array (`{ type: 'refusal', refusal }`).
 */
export function refusalText(message: Json): string {
  const parts = Array.isArray(message.content) ? message.content : [];
  const inParts = parts.map((part) => (isJsonObject(part) && part.type === 'refusal' ? textOf(part.refusal) : ''));
  return textOf(message.refusal) + inParts.join('');
}

/** What stands for a refusal when a content filter (Azure's `finish_reason: "content_filter"`) let nothing through. */
const FILTERED_REPLY =
  "The provider's content filter withheld the reply (finish_reason: content_filter); nothing came back to use.";

/**
 * Reasoning as the servers that send it apart name it: `reasoning_content` (vLLM's reasoning parsers, DeepSeek,
 * llama.cpp), `reasoning` (OpenRouter, Ollama, Groq), or OpenRouter's `reasoning_details` parts.
 */
export function reasoningText(message: Json): string {
  const direct = textOf(message.reasoning_content) || textOf(message.reasoning);
  if (direct !== '') return direct;
  if (!Array.isArray(message.reasoning_details)) return '';
  return message.reasoning_details
    .map((part) => (isJsonObject(part) ? textOf(part.text) || textOf(part.summary) : ''))
    .filter((part) => part !== '')
    .join('\n');
}

/**
 * Tool-call arguments as text: a JSON string as OpenAI sends it, or an object some servers and proxies send already
 * parsed (serialised, so it reads like any other call); nothing at all is no arguments.
 */
export function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value) ?? '';
}

/**
 * The calls of a message, each with the ID its server gave it, sent back to it exactly in the next prompt. Servers
 * omit IDs (or repeat one for every call): such a call's ID is '', and the loop makes one up that every known server
 * accepts (see wireCallId). The legacy `function_call` counts as one call.
 */
export function readToolCalls(message: Json): ModelToolCall[] {
  const raw: unknown[] = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  const listed = raw.length === 0 && isJsonObject(message.function_call) ? [{ function: message.function_call }] : raw;
  const seen = new Set<string>();
  const calls: ModelToolCall[] = [];
  for (const entry of listed) {
    if (!isJsonObject(entry)) continue;
    const fn = isJsonObject(entry.function) ? entry.function : entry;
    const name = textOf(fn.name).trim();
    let id = textOf(entry.id);
    if (seen.has(id)) id = '';
    if (id !== '') seen.add(id);
    calls.push({ id, name, argumentsText: argumentsText(fn.arguments ?? fn.parameters) });
  }
  return calls;
}

/** A body that is not a completion, classified; an `error` object in a 200 body is the error it describes. */
function notACompletion(body: unknown, endpoint: ModelEndpoint): UnreadableReply {
  const error = errorObjectOf(body);
  if (error !== undefined) {
    const detail = textOf(error.message) || JSON.stringify(error);
    const code = Number(error.code ?? error.status);
    const status = Number.isInteger(code) && code >= 400 && code < 600 ? code : 500;
    return new UnreadableReply(classifyResponse({ status, detail, body: error }, endpoint));
  }
  if (body === undefined) {
    // A stream closed before its first chunk (a proxy or load balancer cut it): nothing was generated, so nothing was
    // paid for, and the next attempt may well get through.
    return new UnreadableReply({
      type: ErrorType.ModelUnavailable,
      message: `The model endpoint ${endpoint.baseURL} closed the stream before sending anything`,
      nonRetryable: false,
    });
  }
  const what =
    typeof body === 'string'
      ? `text that is not JSON (starting ${JSON.stringify(body.trim().slice(0, 80))})`
      : `JSON without choices (${JSON.stringify(body).slice(0, 120)})`;
  return new UnreadableReply({
    type: ErrorType.ModelBadResponse,
    message: badResponseMessage(endpoint, what),
    nonRetryable: true,
  });
}

/**
 * Reads whatever an endpoint returned for a chat-completions request. Throws nothing but an {@link UnreadableReply},
 * already classified: an HTML page, JSON without choices or an error object in a 200 body each get a named type, so
 * no paid call is retried because a reply could not be read.
 */
export function readCompletion(body: unknown, endpoint: ModelEndpoint): CompletionReply {
  let parsed = body;
  if (typeof body === 'string') {
    // A JSON body sent without a JSON content type reaches the client as text.
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      throw notACompletion(body, endpoint);
    }
  }
  const choices = isJsonObject(parsed) && Array.isArray(parsed.choices) ? parsed.choices : undefined;
  const choice: unknown = choices?.[0];
  if (!isJsonObject(parsed) || !isJsonObject(choice)) throw notACompletion(parsed, endpoint);
  const message = isJsonObject(choice.message) ? choice.message : isJsonObject(choice.delta) ? choice.delta : {};
  // Legacy completions-style servers put the text on the choice itself.
  const content = contentText(message.content) || textOf(choice.text);
  const toolCalls = readToolCalls(message);
  const finishReason = textOf(choice.finish_reason) || null;
  // Azure stops a reply its filter flags with `content_filter`: when nothing usable came, that is a refusal too.
  const filtered = finishReason === 'content_filter' && content.trim() === '' && toolCalls.length === 0;
  return {
    id: textOf(parsed.id),
    content,
    reasoning: reasoningText(message),
    refusal: refusalText(message).trim() || (filtered ? FILTERED_REPLY : ''),
    toolCalls,
    finishReason,
    usage: parsed.usage,
    ...(typeof parsed.model === 'string' ? { model: parsed.model } : {}),
  };
}
