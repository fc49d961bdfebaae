import { describe, expect, it } from 'vitest';
import {
  callPrint,
  jaccard,
  MAX_QUERY_WORDS,
  nearDuplicateCalls,
  nearDuplicateReplies,
  queryTokens,
} from '../../src/workflow/limits/call-similarity';

const near = (toolA: string, argsA: unknown, toolB: string, argsB: unknown) =>
  nearDuplicateCalls(callPrint(toolA, argsA), callPrint(toolB, argsB));
const search = (query: string, extra: Record<string, unknown> = {}) => ({ query, ...extra });

describe('queryTokens', () => {
  it('keeps content words, lower-cased, without stop words, possessives or plural s', () => {
    expect(queryTokens('What is the price of Apple?')).toEqual({
      words: ['apple', 'price'],
      numbers: [],
      names: ['apple'],
    });
    expect(queryTokens("Apple's share-prices")).toEqual({ words: ['apple', 'price', 'share'], numbers: [], names: [] });
  });

  it('keeps tokens with digits apart, to be matched exactly', () => {
    expect(queryTokens('apple revenue Q3 2023')).toEqual({
      words: ['apple', 'revenue'],
      numbers: ['2023', 'q3'],
      names: [],
    });
    expect(queryTokens('growth of 1.5 percent')).toEqual({ words: ['growth', 'percent'], numbers: ['1.5'], names: [] });
  });

  it('refuses identifiers, paths, expressions and code: they compare exactly', () => {
    for (const text of [
      'AAPL',
      'src/a.ts',
      'docs/how a run works.md',
      '2 + 2',
      'x - y',
      'f(x) = 1',
      'a_b c',
      'https://x.y z',
    ]) {
      expect(queryTokens(text), text).toBeNull();
    }
  });

  it('refuses long texts: content, not a query', () => {
    expect(queryTokens(Array.from({ length: MAX_QUERY_WORDS }, () => 'word').join(' '))).not.toBeNull();
    expect(queryTokens(Array.from({ length: MAX_QUERY_WORDS + 1 }, () => 'word').join(' '))).toBeNull();
  });
});

describe('jaccard', () => {
  it.each([
    [['apple', 'price'], ['apple', 'price'], 1],
    [['apple', 'price'], ['apple', 'price', 'stock'], 2 / 3],
    [['apple', 'price'], ['banana', 'price'], 1 / 3],
    [[], [], 1],
    [['a'], [], 0],
  ])('%j and %j: %d', (a, b, value) => {
    expect(jaccard(a, b)).toBeCloseTo(value);
  });
});

describe('nearDuplicateCalls', () => {
  it('matches paraphrases of one search', () => {
    const queries = ['apple price', 'price of apple', 'Apple stock price', 'What is the price of Apple?'];
    for (const a of queries)
      for (const b of queries) expect(near('search', search(a), 'search', search(b)), `${a} / ${b}`).toBe(true);
  });

  it('tells different questions apart', () => {
    expect(near('search', search('apple price'), 'search', search('banana price'))).toBe(false);
    expect(near('search', search('python list sort ascending'), 'search', search('python list sort descending'))).toBe(
      false,
    );
    expect(near('search', search('weather in Paris'), 'search', search('weather in London'))).toBe(false);
  });

  it('tells the same question about another named subject apart (issue 50, F1)', () => {
    const reports = ['Apple Inc', 'Microsoft', 'Alphabet', 'Microsoft Corporation'].map(
      (company) => `latest quarterly revenue report for ${company}`,
    );
    // Microsoft and Alphabet shared four words of six: a near-repeat before names were read.
    expect(near('search', search(reports[1]!), 'search', search(reports[2]!))).toBe(false);
    expect(near('search', search(reports[0]!), 'search', search(reports[2]!))).toBe(false);
    // The same subject, reworded, is still the same question.
    expect(near('search', search(reports[1]!), 'search', search(reports[3]!))).toBe(true);
    expect(near('search', search('Apple stock price'), 'search', search('the price of apple stock'))).toBe(true);
  });

  it('treats numbers that differ as different calls, in a text or as an argument', () => {
    expect(near('search', search('apple revenue 2022'), 'search', search('revenue of apple in 2023'))).toBe(false);
    expect(near('search', search('apple price', { limit: 3 }), 'search', search('price of apple', { limit: 5 }))).toBe(
      false,
    );
    expect(near('read_file', { path: 'a.txt', offset: 0 }, 'read_file', { path: 'a.txt', offset: 100 })).toBe(false);
    expect(near('search', search('apple revenue 2023'), 'search', search('2023 revenue of apple'))).toBe(true);
  });

  it('compares identifiers, paths and expressions exactly (after case and whitespace)', () => {
    expect(near('calculator', { expression: '2 + 2' }, 'calculator', { expression: '3 + 3' })).toBe(false);
    expect(near('calculator', { expression: 'x + y' }, 'calculator', { expression: 'x - y' })).toBe(false);
    expect(near('read_file', { path: 'src/a.ts' }, 'read_file', { path: 'src/b.ts' })).toBe(false);
    expect(near('stock_price', { symbol: 'AAPL' }, 'stock_price', { symbol: 'MSFT' })).toBe(false);
    expect(near('calculator', { expression: ' 2 + 2' }, 'calculator', { expression: '2  +  2' })).toBe(true);
  });

  it('needs the same tool and the same argument names', () => {
    expect(near('search', search('apple price'), 'web_search', search('apple price'))).toBe(false);
    expect(near('search', { query: 'apple price' }, 'search', { q: 'apple price' })).toBe(false);
  });
});

describe('nearDuplicateReplies', () => {
  const print = (query: string) => callPrint('search', search(query));

  it("matches replies whose calls match each other's, in any order", () => {
    expect(
      nearDuplicateReplies(
        [print('apple price'), print('selic rate')],
        [print('Selic rate now'), print('price of apple')],
      ),
    ).toBe(true);
  });

  it('does not match a reply that adds or drops a call', () => {
    expect(nearDuplicateReplies([print('apple price')], [print('apple price'), print('selic rate')])).toBe(false);
    expect(nearDuplicateReplies([print('apple price'), print('selic rate')], [print('apple price')])).toBe(false);
  });
});
