import { describe, expect, it } from 'vitest';
import { criticActions, DEFAULT_CRITIC_ACTIONS } from '../../src/shared/critic';
import { refineArgs } from '../../src/workflow/thinking/critic-step';

describe('critic actions', () => {
  it('true acts on every verdict; an object overrides only what it names; false is off', () => {
    expect(criticActions(true)).toEqual({
      onContinue: 'answer',
      onRetry: 'reissue',
      onDifferentTool: 'steer',
      onInsufficientData: 'stop',
    });
    expect(criticActions({ onRetry: 'note', onContinue: undefined })).toEqual({
      ...DEFAULT_CRITIC_ACTIONS,
      onRetry: 'note',
    });
    expect(criticActions(false)).toBeNull();
  });

  it('a refined query replaces the argument named like a query, else the only string argument', () => {
    expect(refineArgs({ query: 'old', limit: 5, lang: 'en' }, 'new')).toEqual({ query: 'new', limit: 5, lang: 'en' });
    expect(refineArgs({ symbol: 'AAPL', days: 3 }, 'MSFT')).toEqual({ symbol: 'MSFT', days: 3 });
    // Two string arguments and none named like a query: which one to replace is a guess, so none is.
    expect(refineArgs({ from: 'a', to: 'b' }, 'c')).toBeNull();
    expect(refineArgs('text', 'c')).toBeNull();
  });
});
