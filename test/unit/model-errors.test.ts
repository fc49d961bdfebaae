import { afterEach, beforeEach, describe, it, expect, vi } from 'vitest';
import { ApplicationFailure } from '@temporalio/common';
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { classifyModelError, MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/worker/activities/model-errors';

const endpoint = { baseURL: 'https://llm.example.test/v1', model: 'gpt-test' };
const NOW = Date.parse('2025-06-01T12:00:00Z');

function apiError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: { message: 'm' } }, undefined, new Headers(headers));
}

function classify(error: unknown): ApplicationFailure {
  const result = classifyModelError(error, endpoint);
  if (!(result instanceof ApplicationFailure)) throw new Error(`expected an ApplicationFailure, got ${String(result)}`);
  return result;
}

describe('classifyModelError', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it.each([401, 403])('fails at once on %i, saying the key was rejected and by whom', (status) => {
    const failure = classify(apiError(status));
    expect(failure.type).toBe('ModelAuthenticationError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(
      `OPENAI_API_KEY rejected by https://llm.example.test/v1 (HTTP ${status}): m. ` +
        'Set OPENAI_API_KEY to a key valid for this endpoint.',
    );
  });

  it('fails at once on 404, naming the model', () => {
    const failure = classify(apiError(404));
    expect(failure.type).toBe('ModelNotFoundError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('Model "gpt-test"');
    expect(failure.message).toContain('https://llm.example.test/v1 (HTTP 404)');
    expect(failure.message).toContain('OPENAI_MODEL');
  });

  it.each([400, 422, 413])('fails at once on %i as a bad request', (status) => {
    const failure = classify(apiError(status));
    expect(failure.type).toBe('ModelBadRequestError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toBe(`Request refused by https://llm.example.test/v1 (HTTP ${status}): m`);
  });

  it.each([408, 409, 500, 502, 503])('retries %i as unavailable', (status) => {
    const failure = classify(apiError(status));
    expect(failure.type).toBe('ModelUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(`Model endpoint https://llm.example.test/v1 (HTTP ${status}) is unavailable: m`);
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it('honours retry-after on a 503', () => {
    expect(classify(apiError(503, { 'retry-after': '7' })).nextRetryDelay).toBe(7000);
  });

  it('retries 429 as rate limited, leaving the delay to Temporal without retry-after', () => {
    const failure = classify(apiError(429));
    expect(failure.type).toBe('ModelRateLimitedError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Rate limited by https://llm.example.test/v1 (HTTP 429): m');
    expect(failure.nextRetryDelay).toBeUndefined();
  });

  it.each([
    [{ 'retry-after': '20' }, 20_000],
    [{ 'retry-after': '1.5' }, 1500],
    [{ 'retry-after-ms': '250' }, 250],
    [{ 'retry-after-ms': '250', 'retry-after': '20' }, 250],
    [{ 'retry-after': new Date(NOW + 45_000).toUTCString() }, 45_000],
    [{ 'retry-after': '86400' }, MAX_RETRY_AFTER_MS],
    [{ 'retry-after-ms': '99999999' }, MAX_RETRY_AFTER_MS],
  ])('takes the next retry delay of a 429 from %j', (headers, delay) => {
    expect(classify(apiError(429, headers)).nextRetryDelay).toBe(delay);
  });

  it('keeps the provider error as the cause of a retryable failure', () => {
    const error = apiError(500);
    expect(classify(error).cause).toBe(error);
  });

  it('retries a connection error, naming the endpoint and the cause', () => {
    const failure = classify(new APIConnectionError({ message: 'x', cause: new Error('ECONNREFUSED 127.0.0.1:1') }));
    expect(failure.type).toBe('ModelUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Could not connect to https://llm.example.test/v1: ECONNREFUSED 127.0.0.1:1');
  });

  it('retries a connection error without a cause', () => {
    const failure = classify(new APIConnectionError({ message: 'x' }));
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Could not connect to https://llm.example.test/v1');
  });

  it('retries a timeout', () => {
    const failure = classify(new APIConnectionTimeoutError());
    expect(failure.type).toBe('ModelUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Model request to https://llm.example.test/v1 timed out');
  });

  it('returns a cancellation unchanged so the activity reports it as cancelled', () => {
    const abort = new APIUserAbortError();
    expect(classifyModelError(abort, endpoint)).toBe(abort);
  });

  it('retries errors that are not from the provider', () => {
    const failure = classify(new TypeError('fetch failed'));
    expect(failure.type).toBe('ModelUnavailableError');
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe('Model request failed: fetch failed');
    expect(classify('boom').message).toBe('Model request failed: boom');
  });
});

describe('classifyModelError redacts credentials', () => {
  const apiKey = 'my-endpoint-key-0123456789';
  const withKey = { ...endpoint, apiKey };

  function failureOf(error: unknown): ApplicationFailure {
    const result = classifyModelError(error, withKey);
    if (!(result instanceof ApplicationFailure))
      throw new Error(`expected an ApplicationFailure, got ${String(result)}`);
    return result;
  }

  function providerError(status: number, message: string): APIError {
    return APIError.generate(status, { error: { message } }, undefined, new Headers());
  }

  it('removes the key echoed URL-encoded, JSON-escaped or in base64 (N26)', () => {
    const key = 'tok+CANARY/QQQ=9xyz';
    const echoes = [
      `(Bearer%20${encodeURIComponent(key)})`,
      `query key=${encodeURIComponent(key).replace(/%20/g, '+')}`,
      `{"key":${JSON.stringify(key)}}`,
      `basic ${Buffer.from(`:${key}`).toString('base64')}`,
      `raw ${Buffer.from(key).toString('base64')}`,
    ];
    const result = classifyModelError(providerError(401, echoes.join(' | ')), { ...endpoint, apiKey: key });
    const message = (result as ApplicationFailure).message;
    expect(message).not.toContain('CANARY');
    for (const form of [encodeURIComponent(key), Buffer.from(key).toString('base64').replace(/=+$/, '')]) {
      expect(message).not.toContain(form);
    }
    expect(message.match(/\[REDACTED\]/g)?.length).toBe(echoes.length);
  });

  it('removes the configured key that a 401 echoes back', () => {
    const failure = failureOf(providerError(401, `Incorrect API key provided: ${apiKey}`));
    expect(failure.message).not.toContain(apiKey);
    expect(failure.message).toBe(
      'OPENAI_API_KEY rejected by https://llm.example.test/v1 (HTTP 401): Incorrect API key provided: [REDACTED]. ' +
        'Set OPENAI_API_KEY to a key valid for this endpoint.',
    );
    expect(failure.type).toBe('ModelAuthenticationError');
  });

  it('removes sk- tokens and bearer tokens even when they are not the configured key', () => {
    const failure = failureOf(
      providerError(403, 'key sk-proj-AbCdEf0123456789xyz is not allowed; got header Bearer eyJhbGciOi.J9x-_~+/=='),
    );
    expect(failure.message).toContain('key [REDACTED] is not allowed; got header Bearer [REDACTED]');
    expect(failure.message).not.toContain('AbCdEf0123456789');
    expect(failure.message).not.toContain('eyJhbGciOi');
  });

  it('redacts the cause a retryable failure carries, message and stack, keeping its name', () => {
    const error = providerError(503, `upstream rejected ${apiKey}`);
    const failure = failureOf(error);
    expect(failure.nonRetryable).toBe(false);
    expect(failure.message).toBe(
      'Model endpoint https://llm.example.test/v1 (HTTP 503) is unavailable: upstream rejected [REDACTED]',
    );
    expect(failure.cause?.message).toBe('503 upstream rejected [REDACTED]');
    expect(failure.cause?.name).toBe(error.name);
    expect(failure.cause?.stack ?? '').not.toContain(apiKey);
  });

  it('redacts errors that are not from the provider and connection causes', () => {
    expect(failureOf(new Error(`socket closed for ${apiKey}`)).message).toBe(
      'Model request failed: socket closed for [REDACTED]',
    );
    const connection = new APIConnectionError({ message: 'x', cause: new Error(`proxy refused Bearer ${apiKey}`) });
    expect(failureOf(connection).message).toBe(
      'Could not connect to https://llm.example.test/v1: proxy refused Bearer [REDACTED]',
    );
  });

  it('leaves a message alone when a local endpoint uses a short placeholder key', () => {
    const failure = classifyModelError(providerError(401, 'no key for ollama'), { ...endpoint, apiKey: 'ollama' });
    expect((failure as ApplicationFailure).message).toContain('no key for ollama');
  });
});

describe('parseRetryAfter', () => {
  const parse = (headers: Record<string, string>) => parseRetryAfter(new Headers(headers), NOW);

  it('is undefined without headers', () => {
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parse({})).toBeUndefined();
  });

  it.each([
    [{ 'retry-after': 'soon' }],
    [{ 'retry-after': '' }],
    [{ 'retry-after': '   ' }],
    [{ 'retry-after-ms': '-1' }],
    [{ 'retry-after-ms': 'abc' }],
  ])('is undefined for the unreadable %j', (headers) => {
    expect(parse(headers)).toBeUndefined();
  });

  // Neither is delay-seconds nor an HTTP date (RFC 9110 §10.2.3); V8's lenient Date.parse once read them as 2001.
  it.each([[{ 'retry-after': '-5' }], [{ 'retry-after': 'soon 5' }]])('is undefined for the non-date %j', (headers) => {
    expect(parse(headers)).toBeUndefined();
  });

  it('falls back to retry-after when retry-after-ms is unreadable', () => {
    expect(parse({ 'retry-after-ms': 'abc', 'retry-after': '3' })).toBe(3000);
  });

  it('reads zero as retry now', () => {
    expect(parse({ 'retry-after': '0' })).toBe(0);
    expect(parse({ 'retry-after-ms': '0' })).toBe(0);
  });

  it('measures an HTTP date from now', () => {
    expect(parse({ 'retry-after': 'Sun, 01 Jun 2025 12:00:30 GMT' })).toBe(30_000);
  });

  it('reads a date in the past as retry now', () => {
    expect(parse({ 'retry-after': 'Sun, 01 Jun 2025 11:00:00 GMT' })).toBe(0);
  });

  it('caps long waits', () => {
    expect(parse({ 'retry-after': String(24 * 3600) })).toBe(MAX_RETRY_AFTER_MS);
    expect(parse({ 'retry-after': 'Mon, 02 Jun 2025 12:00:00 GMT' })).toBe(MAX_RETRY_AFTER_MS);
  });
});
