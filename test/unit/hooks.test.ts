import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { callHook, HOOK_ERROR } from '../../src/workflow/hooks';

describe('callHook', () => {
  it("passes a hook's value through", () => {
    expect(callHook('shouldStop', () => 'done')).toBe('done');
  });

  it('turns a throwing hook into a non-retryable failure of the run, naming the hook', () => {
    let caught: unknown;
    try {
      void callHook('beforeToolCall', () => {
        throw new Error('policy service unreachable');
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApplicationFailure);
    expect(caught).toMatchObject({
      type: HOOK_ERROR,
      nonRetryable: true,
      message: 'The beforeToolCall hook threw: policy service unreachable',
    });
  });

  it('passes a promise through, and turns its rejection into the same failure', async () => {
    await expect(callHook('shouldStop', () => Promise.resolve('later'))).resolves.toBe('later');
    await expect(
      callHook('beforeToolCall', () => Promise.reject(new Error('policy service unreachable'))),
    ).rejects.toMatchObject({
      type: HOOK_ERROR,
      nonRetryable: true,
      message: 'The beforeToolCall hook threw: policy service unreachable',
    });
  });
});
