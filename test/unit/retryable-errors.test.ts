import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/worker/tools/define-tool';
import { isRetryableError } from '../../src/worker/tools/retryable-errors';

class RateLimited extends Error {
  override readonly name = 'RateLimited';
}

class SlowDown extends RateLimited {}

describe('isRetryableError', () => {
  it('retries every error when the tool lists no matchers', () => {
    expect(isRetryableError(undefined, new TypeError('bad'))).toBe(true);
  });

  it('matches classes by instanceof, strings by name, class or code, RegExps by message', () => {
    const connectionReset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(isRetryableError([RateLimited], new SlowDown('wait'))).toBe(true);
    expect(isRetryableError(['RateLimited'], new SlowDown('wait'))).toBe(true);
    expect(isRetryableError(['SlowDown'], new SlowDown('wait'))).toBe(true);
    expect(isRetryableError(['ECONNRESET'], connectionReset)).toBe(true);
    expect(isRetryableError([/hang up/], connectionReset)).toBe(true);
    // A string is a name, never a piece of the message.
    expect(isRetryableError(['socket'], connectionReset)).toBe(false);
    expect(isRetryableError([RateLimited, /timed out/], new TypeError('quantity must be positive'))).toBe(false);
  });

  it('gives a global RegExp the same answer every time', () => {
    const pattern = /busy/g;
    expect([1, 2, 3].map(() => isRetryableError([pattern], new Error('server busy')))).toEqual([true, true, true]);
  });
});

describe('defineTool retryableErrors', () => {
  const base = { name: 'quote', description: 'Quotes a price.', schema: z.object({}), handler: () => 'ok' };

  it('refuses an empty list or a matcher of the wrong kind at start-up', () => {
    expect(() => defineTool({ ...base, retryableErrors: [] })).toThrow(/retryableErrors is empty/);
    expect(() => defineTool({ ...base, retryableErrors: [42 as unknown as string] })).toThrow(/error classes/);
    expect(() => defineTool({ ...base, retryableErrors: [Object as unknown as typeof Error] })).toThrow(
      /error classes/,
    );
    expect(defineTool({ ...base, retryableErrors: [RateLimited, 'ETIMEDOUT', /busy/] }).name).toBe('quote');
  });
});
