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
  });
}
