import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ErrorType, errorMessage, DurableAgentError } from '../../shared/errors';

/** Longest wait we accept from a `retry-after` header; a longer one is capped so a run never parks for hours. */
export const MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

/** Where the failing request went, so messages can say what to fix. */
export interface ModelEndpoint {
  baseURL: string;
  model: string;
  /** The key the request carried; redacted wherever an error message echoes it. */
  apiKey?: string | null;
}

/** What a redacted credential is replaced with. */
export const REDACTED = '[REDACTED]';

/** Keys shorter than this are placeholders for local endpoints ("ollama"); replacing them would garble messages. */
const MIN_REDACTED_KEY_LENGTH = 8;

/** OpenAI-style secret keys and HTTP bearer credentials, whoever they belong to. */
const SECRET_KEY_PATTERN = /\bsk-[A-Za-z0-9_-]{8,}/g;
const BEARER_PATTERN = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi;

/**
 * Removes the API key and anything that looks like a credential from text. Some endpoints echo the key in a 401;
 * an unredacted message would be stored in workflow history and printed in worker logs.
 */
export function redactSecrets(text: string, apiKey?: string | null): string {
  let withoutKey = text;
  if (typeof apiKey === 'string' && apiKey.length >= MIN_REDACTED_KEY_LENGTH) {
    for (const form of keyForms(apiKey)) withoutKey = withoutKey.split(form).join(REDACTED);
  }
  return withoutKey.replace(SECRET_KEY_PATTERN, REDACTED).replace(BEARER_PATTERN, `$1${REDACTED}`);
}

/**
 * The ways an endpoint may echo a key: as it is, URL-encoded (both spellings of a space), JSON-escaped and base64
 * (of the key, and of a Basic credential's `:key`). An echo in any of them would otherwise reach history and logs.
 */
function keyForms(apiKey: string): string[] {
  const json = JSON.stringify(apiKey).slice(1, -1);
  const url = encodeURIComponent(apiKey);
  const base64 = (value: string) => Buffer.from(value).toString('base64').replace(/=+$/, '');
  const forms = [apiKey, json, url, url.replace(/%20/g, '+'), base64(apiKey), base64(`:${apiKey}`)];
  // Longest first, so a form that contains another is replaced whole.
  return [...new Set(forms)]
    .filter((form) => form.length >= MIN_REDACTED_KEY_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** The cause with its message and stack redacted; the same object when there was nothing to redact. */
function redactedCause(cause: Error, redact: (text: string) => string): Error {
  const message = redact(cause.message);
  const stack = cause.stack === undefined ? undefined : redact(cause.stack);
  if (message === cause.message && stack === cause.stack) return cause;
  const copy = new Error(message);
  copy.name = cause.name;
  copy.stack = stack;
  return copy;
}

/**
 * Parses `retry-after-ms` / `retry-after` (seconds or an HTTP date) into milliseconds from `now`.
 * Returns undefined when absent or unreadable, so Temporal's backoff applies.
 */
export function parseRetryAfter(headers: Headers | undefined, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const milliseconds = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) {
    return Math.min(milliseconds, MAX_RETRY_AFTER_MS);
  }
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  // Date.parse is lenient ("-5" is a date in 2001), so only an IMF-fixdate ("Wed, 21 Oct 2026 07:28:00 GMT") counts.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} /.test(value.trim())) return undefined;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(date - now, 0), MAX_RETRY_AFTER_MS);
}

/** How an error was classified, before it becomes an ApplicationFailure (redacted on the way). */
export interface Classification {
  type: string;
  message: string;
  nonRetryable: boolean;
  cause?: Error;
  nextRetryDelay?: number;
  /** Facts the workflow acts on (the context window a provider stated). */
  details?: Record<string, unknown>;
}

function retryable(type: string, message: string, cause: unknown, nextRetryDelay?: number): Classification {
  return {
    type,
    message,
    nonRetryable: false,
    ...(cause instanceof Error ? { cause } : {}),
    ...(nextRetryDelay === undefined ? {} : { nextRetryDelay }),
  };
}

function fatal(type: string, message: string): Classification {
  return { type, message, nonRetryable: true };
}

/**
 * The one place model errors are classified. Retryable (Temporal retries with backoff): 408, 409, 429, 5xx,
 * connection errors and timeouts. Everything else fails at once with a named type and a message saying what to fix.
 * A cancellation (the run was cancelled or timed out) is returned unchanged. Messages and causes are redacted
 * (redactSecrets) because they leave the activity for history and logs.
 */
export function classifyModelError(error: unknown, endpoint: ModelEndpoint): unknown {
  if (error instanceof APIUserAbortError) return error;
  const { type, message, nonRetryable, cause, nextRetryDelay, details } = classify(error, endpoint);
  const redact = (text: string): string => redactSecrets(text, endpoint.apiKey);
  return ApplicationFailure.create({
    type,
    message: redact(message),
    nonRetryable,
    ...(cause === undefined ? {} : { cause: redactedCause(cause, redact) }),
    ...(nextRetryDelay === undefined ? {} : { nextRetryDelay }),
    ...(details === undefined ? {} : { details: [details] }),
  });
}

/** Phrases providers use when a prompt is over the context window (OpenAI, vLLM, llama.cpp, TGI, Groq, LM Studio…). */
const CONTEXT_LENGTH_PATTERNS: readonly RegExp[] = [
  /context[ _-]?length/i,
  /context (?:size|window)/i,
  /exceed_context_size/i,
  /prompt is too long/i,
  /reduce the length of the (?:messages|prompt|input)/i,
  /`inputs` tokens \+ `max_new_tokens` must be/i,
  /`inputs` must have less than \d+ tokens/i,
  /exceeds the maximum number of tokens/i,
  /too many (?:input )?tokens/i,
];

/** Where providers state the window's size in their context-length errors. */
const WINDOW_SIZE_PATTERNS: readonly RegExp[] = [
  /maximum context length is (\d+)/i,
  /context length of (?:only )?(\d+)/i,
  /must be <= (\d+)/i,
  /less than (\d+) tokens/i,
  /(\d+) maximum context length/i,
  /maximum (?:number of tokens allowed )?\((\d+)\)/i,
  /> (\d+) maximum/i,
];

/** The context window a provider's error states, when it states one (also llama.cpp's `n_ctx` field). */
export function statedContextWindow(message: string, body?: unknown): number | undefined {
  const nCtx = typeof body === 'object' && body !== null ? (body as { n_ctx?: unknown }).n_ctx : undefined;
  if (typeof nCtx === 'number' && Number.isInteger(nCtx) && nCtx > 0) return nCtx;
  for (const pattern of WINDOW_SIZE_PATTERNS) {
    const size = Number(pattern.exec(message)?.[1]);
    if (Number.isInteger(size) && size > 0) return size;
  }
  return undefined;
}

/** Whether an error's text (message, code or type) says the prompt is over the model's context window. */
export function isContextLengthError(text: string): boolean {
  return CONTEXT_LENGTH_PATTERNS.some((pattern) => pattern.test(text));
}

/** The fields of a provider's `error` object that say what kind of error it is. */
function errorWords(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const { code, type, metadata } = body as { code?: unknown; type?: unknown; metadata?: unknown };
  // OpenRouter passes the upstream provider's own error text along in `metadata.raw`.
  const upstream = typeof metadata === 'object' && metadata !== null ? JSON.stringify(metadata) : undefined;
  return [code, type, upstream].filter((word) => typeof word === 'string').join(' ');
}

/** An error response, wherever it came from: a thrown APIError, or an `error` object in a 200 body. */
export interface ErrorResponse {
  status: number;
  headers?: Headers;
  detail: string;
  /** The provider's `error` object, when there was one. */
  body?: unknown;
  cause?: unknown;
}

/** Classifies an error response by its status, its words and the endpoint it came from. */
export function classifyResponse(response: ErrorResponse, endpoint: ModelEndpoint): Classification {
  const { status, headers, detail, body, cause } = response;
  const where = `${endpoint.baseURL} (HTTP ${status})`;
  // Any status but a rate limit: older llama.cpp builds send their context-size error as a 500, and no retry helps.
  if (status !== 429 && status >= 400 && isContextLengthError(`${detail} ${errorWords(body)}`)) {
    const window = statedContextWindow(detail, body);
    return {
      ...fatal(
        ErrorType.ModelContextLengthExceeded,
        `The prompt is over the context window of "${endpoint.model}" at ${where}: ${detail}`,
      ),
      ...(window === undefined ? {} : { details: { contextWindow: window } }),
    };
  }
  if (status === 429) {
    const delay = parseRetryAfter(headers);
    return retryable(ErrorType.ModelRateLimited, `Rate limited by ${where}: ${detail}`, cause, delay);
  }
  if (status === 408 || status === 409 || status >= 500) {
    const delay = parseRetryAfter(headers);
    return retryable(ErrorType.ModelUnavailable, `Model endpoint ${where} is unavailable: ${detail}`, cause, delay);
  }
  if (status === 401 || status === 403) {
    return fatal(
      ErrorType.ModelAuthentication,
      `OPENAI_API_KEY rejected by ${where}: ${detail}. Set OPENAI_API_KEY to a key valid for this endpoint.`,
    );
  }
  if (status === 404) {
    return fatal(
      ErrorType.ModelNotFound,
      `Model "${endpoint.model}" or its endpoint was not found at ${where}: ${detail}. Check OPENAI_MODEL and OPENAI_BASE_URL.`,
    );
  }
  return fatal(ErrorType.ModelBadRequest, `Request refused by ${where}: ${detail}`);
}

/** A reply that could not be read, classified where it was found (its body says what it is). */
export class UnreadableReply extends DurableAgentError {
  override readonly name = 'UnreadableReply';

  constructor(readonly classification: Classification) {
    super(classification.message);
  }
}

function classify(error: unknown, endpoint: ModelEndpoint): Classification {
  if (error instanceof UnreadableReply) return error.classification;
  if (error instanceof APIConnectionTimeoutError) {
    return retryable(ErrorType.ModelUnavailable, `Model request to ${endpoint.baseURL} timed out`, error);
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return retryable(ErrorType.ModelUnavailable, `Could not connect to ${endpoint.baseURL}${cause}`, error);
  }
  if (error instanceof SyntaxError) {
    // The client could not parse a body that claimed to be JSON: a proxy's page, not a model's answer. Retrying the
    // same URL gets the same page, so it fails at once with the fix.
    return fatal(
      ErrorType.ModelBadResponse,
      badResponseMessage(endpoint, `a body that is not JSON (${error.message})`),
    );
  }
  if (!(error instanceof APIError) || error.status === undefined) {
    // An APIError without a status is an `error` event inside a stream (OpenRouter sends these mid-answer).
    const streamed: unknown = error instanceof APIError ? (error.error as unknown) : undefined;
    // OpenRouter and vLLM put the status in `code`, TGI in `http_status_code`.
    const fields = (streamed ?? {}) as { code?: unknown; http_status_code?: unknown };
    const code = Number(fields.code ?? fields.http_status_code);
    const message = errorMessage(error);
    if (Number.isInteger(code) && code >= 400 && code < 600) {
      return classifyResponse({ status: code, detail: message, body: streamed, cause: error }, endpoint);
    }
    return retryable(ErrorType.ModelUnavailable, `Model request failed: ${message}`, error);
  }
  // instanceof erases APIError's type parameters; restore the ones a response-carrying error has.
  const { status, headers } = error as APIError<number, Headers | undefined>;
  const detail = error.message.replace(/^\d{3}\s*/, '');
  return classifyResponse({ status, headers, detail, body: error.error, cause: error }, endpoint);
}

/** What to tell a user whose endpoint answered with something other than a chat completion. */
export function badResponseMessage(endpoint: Pick<ModelEndpoint, 'baseURL'>, what: string): string {
  return (
    `The model endpoint ${endpoint.baseURL} answered with ${what}, not a chat completion. ` +
    'Check OPENAI_BASE_URL: it must be the API base that serves /chat/completions (e.g. http://localhost:11434/v1).'
  );
}
