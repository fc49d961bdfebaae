import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ErrorType } from '../../shared/errors';

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
  const withoutKey =
    typeof apiKey === 'string' && apiKey.length >= MIN_REDACTED_KEY_LENGTH ? text.split(apiKey).join(REDACTED) : text;
  return withoutKey.replace(SECRET_KEY_PATTERN, REDACTED).replace(BEARER_PATTERN, `$1${REDACTED}`);
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
interface Classification {
  type: string;
  message: string;
  nonRetryable: boolean;
  cause?: Error;
  nextRetryDelay?: number;
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
  const { type, message, nonRetryable, cause, nextRetryDelay } = classify(error, endpoint);
  const redact = (text: string): string => redactSecrets(text, endpoint.apiKey);
  return ApplicationFailure.create({
    type,
    message: redact(message),
    nonRetryable,
    ...(cause === undefined ? {} : { cause: redactedCause(cause, redact) }),
    ...(nextRetryDelay === undefined ? {} : { nextRetryDelay }),
  });
}

function classify(error: unknown, endpoint: ModelEndpoint): Classification {
  if (error instanceof APIConnectionTimeoutError) {
    return retryable(ErrorType.ModelUnavailable, `Model request to ${endpoint.baseURL} timed out`, error);
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return retryable(ErrorType.ModelUnavailable, `Could not connect to ${endpoint.baseURL}${cause}`, error);
  }
  if (!(error instanceof APIError) || error.status === undefined) {
    const message = error instanceof Error ? error.message : String(error);
    return retryable(ErrorType.ModelUnavailable, `Model request failed: ${message}`, error);
  }
  // instanceof erases APIError's type parameters; restore the ones a response-carrying error has.
  const { status, headers } = error as APIError<number, Headers | undefined>;
  const detail = error.message.replace(/^\d{3}\s*/, '');
  const where = `${endpoint.baseURL} (HTTP ${status})`;
  if (status === 429) {
    const delay = parseRetryAfter(headers);
    return retryable(ErrorType.ModelRateLimited, `Rate limited by ${where}: ${detail}`, error, delay);
  }
  if (status === 408 || status === 409 || status >= 500) {
    const delay = parseRetryAfter(headers);
    return retryable(ErrorType.ModelUnavailable, `Model endpoint ${where} is unavailable: ${detail}`, error, delay);
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
