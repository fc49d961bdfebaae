import OpenAI from 'openai';
import { DEFAULT_OPENAI_BASE_URL } from '../common/env';
import { readErrorBody } from './activities/error-body';

/**
 * The openai client's own timeout: below the model activity's 90 s start-to-close timeout so a hung request fails
 * as a retryable timeout inside the attempt. `maxRetries: 0` because Temporal owns retries.
 */
export const OPENAI_REQUEST_TIMEOUT_MS = 60_000;

/** The key an openai client gets when none is set: the client insists on one, local servers often need none. */
export const NO_API_KEY = 'not-needed';

/** Creates the openai client the model activities use. */
export function createOpenAIClient(options: { apiKey?: string; baseURL?: string; timeoutMs?: number }): OpenAI {
  return new OpenAI({
    apiKey: options.apiKey ?? NO_API_KEY,
    baseURL: options.baseURL ?? DEFAULT_OPENAI_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? OPENAI_REQUEST_TIMEOUT_MS,
    fetch: fetchKeepingErrorBodies,
  });
}

/**
 * fetch, with every error body put in the one shape the `openai` client reads (see readErrorBody): the client takes
 * an error's message from the body's `error` field only, so Gemini's array, FastAPI's `detail`, vLLM's flat object
 * and a proxy's page all lost their words. A wait the body asks for (Google's `RetryInfo`) becomes `retry-after-ms`
 * when no header says one.
 */
export async function fetchKeepingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const { error, retryAfterMs } = readErrorBody(await response.text(), response.headers.get('content-type') ?? '');
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (retryAfterMs !== undefined && !headers.has('retry-after') && !headers.has('retry-after-ms'))
    headers.set('retry-after-ms', String(retryAfterMs));
  return new Response(JSON.stringify({ error }), { status: response.status, statusText: response.statusText, headers });
}
