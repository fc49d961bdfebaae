import { describe, expect, it } from 'vitest';
import { literalMatcher, regexMatcher } from '../../../src/worker/tools/builtin/line-matcher';

const TEXT = 'alpha\r\nbeta\ngamma\nALPHA again';

describe('grep_search line matchers', () => {
  it('literal and regex matchers report the same 0-based lines, up to the limit', async () => {
    const literal = literalMatcher('alpha', true);
    const regex = regexMatcher('^a', true, 5_000);
    try {
      expect(await literal.matchingLines(TEXT, 10)).toEqual([0, 3]);
      expect(await literal.matchingLines(TEXT, 1)).toEqual([0]);
      expect(await regex.matchingLines(TEXT, 10)).toEqual([0, 3]);
      // The thread keeps its time budget across files.
      expect(await regex.matchingLines('b\na', 10)).toEqual([1]);
    } finally {
      await literal.close();
      await regex.close();
    }
  });

  it('a cancelled call stops the thread and rejects with the reason', async () => {
    const controller = new AbortController();
    const matcher = regexMatcher('^(a+)+$', false, 60_000, controller.signal);
    const search = matcher.matchingLines(`${'a'.repeat(40)}!`, 1);
    setTimeout(() => controller.abort(new Error('run cancelled')), 50);
    await expect(search).rejects.toThrow('run cancelled');
    await expect(matcher.matchingLines('a', 1)).rejects.toThrow('closed');
  });
});
