import OpenAI from 'openai';
import { DEFAULT_OPENAI_BASE_URL } from '../client/env';

/**
 * The openai client's own timeout: below the model activity's 90 s start-to-close timeout so a hung request fails
 * as a retryable timeout inside the attempt. `maxRetries: 0` because Temporal owns retries.
 */
export const OPENAI_REQUEST_TIMEOUT_MS = 60_000;

/** Creates the openai client the model activities use. */
export function createOpenAIClient(options: { apiKey?: string; baseURL?: string; timeoutMs?: number }): OpenAI {
  return new OpenAI({
    // Local OpenAI-compatible servers often need no key, but the client insists on one.
    apiKey: options.apiKey ?? 'not-needed',
    baseURL: options.baseURL ?? DEFAULT_OPENAI_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? OPENAI_REQUEST_TIMEOUT_MS,
    fetch: fetchKeepingErrorBodies,
  });
}

/**
 * fetch, with error bodies put in the shape the `openai` client reads. The client takes an error's message from the
 * body's `error` field only; vLLM (before its 2025 error format) and other servers send the fields at the top level
 * (`{ "object": "error", "message": … }`), whose message, such as "maximum context length is 4096 tokens", was lost.
 */
export async function fetchKeepingErrorBodies(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const wrapped =
    typeof body === 'object' && body !== null && !Array.isArray(body) && !('error' in body)
      ? JSON.stringify({ error: body })
      : text;
  return new Response(wrapped, { status: response.status, statusText: response.statusText, headers: response.headers });
}
