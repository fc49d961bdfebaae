import { describe, it, expect } from 'vitest';
import {
  callSignature,
  findStall,
  iterationPrint,
  iterationSignature,
  normalizeArgs,
  stallDetailOf,
  stallWindow,
} from '../../src/workflow/limits/stall';

describe('normalizeArgs', () => {
  it('ignores key order', () => {
    expect(normalizeArgs({ b: 1, a: 2 })).toBe(normalizeArgs({ a: 2, b: 1 }));
  });

  it('ignores surrounding and repeated whitespace in strings', () => {
    expect(normalizeArgs({ query: '  capital   of\n France ' })).toBe(normalizeArgs({ query: 'capital of France' }));
  });

  it('ignores case in string values but not in keys', () => {
    expect(normalizeArgs({ query: 'PARIS' })).toBe(normalizeArgs({ query: 'paris' }));
    expect(normalizeArgs({ Query: 'paris' })).not.toBe(normalizeArgs({ query: 'paris' }));
  });

  it('normalises nested objects and arrays', () => {
    const a = { filter: { to: 2020, from: 2010 }, terms: [' Alpha', { z: 'B', y: 'C ' }] };
    const b = { terms: ['alpha', { y: 'c', z: 'b' }], filter: { from: 2010, to: 2020 } };
    expect(normalizeArgs(a)).toBe(normalizeArgs(b));
    expect(normalizeArgs(a)).toBe('{"filter":{"from":2010,"to":2020},"terms":["alpha",{"y":"c","z":"b"}]}');
  });

  it('keeps array order significant', () => {
    expect(normalizeArgs(['a', 'b'])).not.toBe(normalizeArgs(['b', 'a']));
  });

  it('tells different values apart', () => {
    expect(normalizeArgs({ n: 1 })).not.toBe(normalizeArgs({ n: '1' }));
    expect(normalizeArgs({ n: 1 })).not.toBe(normalizeArgs({ n: 2 }));
    expect(normalizeArgs({ flag: true })).not.toBe(normalizeArgs({ flag: 'true' }));
  });

  it('treats null and undefined alike', () => {
    expect(normalizeArgs(undefined)).toBe('null');
    expect(normalizeArgs(null)).toBe('null');
    expect(normalizeArgs([undefined, null])).toBe('[null,null]');
  });

  it('normalises a bare string', () => {
    expect(normalizeArgs('  Hello   World ')).toBe('"hello world"');
  });
});

describe('callSignature', () => {
  it('is equal for the same tool with equivalent arguments', () => {
    expect(callSignature('search', { q: 'Paris ', limit: 3 })).toBe(callSignature('search', { limit: 3, q: 'paris' }));
  });

  it('differs between tools with the same arguments', () => {
    expect(callSignature('search', { q: 'x' })).not.toBe(callSignature('lookup', { q: 'x' }));
  });
});

describe('iterationSignature', () => {
  const two = callSignature('calculator', { expression: '2 + 2' });
  const three = callSignature('calculator', { expression: '3 + 3' });

  it("is the set of a reply's calls: order and duplicates do not matter", () => {
    expect(iterationSignature([two, three])).toBe(iterationSignature([three, two]));
    expect(iterationSignature([two, two, three])).toBe(iterationSignature([three, two]));
    expect(iterationSignature([two, two, two])).toBe(iterationSignature([two]));
  });

  it('differs when a call is added, dropped or changed', () => {
    expect(iterationSignature([two])).not.toBe(iterationSignature([two, three]));
    expect(iterationSignature([two, three])).not.toBe(iterationSignature([three]));
    expect(iterationSignature([two])).not.toBe(iterationSignature([callSignature('search', { expression: '2 + 2' })]));
  });

  it('stays short whatever the size of the reply', () => {
    const huge = Array.from({ length: 200 }, (_, index) =>
      callSignature('write_file', { content: 'x'.repeat(10_000), index }),
    );
    expect(iterationSignature(huge)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('makes identical parallel calls one iteration, not a stall', () => {
    const call = { tool: 'calculator', args: { expression: '2 + 2' } };
    expect(iterationPrint([call, call, call])).toBe(iterationPrint([call]));
    expect(findStall([iterationPrint([call, call, call])], 3)).toBeNull();
  });
});

describe('findStall', () => {
  const search = (query: string) => iterationPrint([{ tool: 'search', args: { query } }]);
  const calc = (expression: string) => iterationPrint([{ tool: 'calculator', args: { expression } }]);
  const read = (path: string, offset = 0) => iterationPrint([{ tool: 'read_file', args: { path, offset } }]);
  const detail = (window: string[], threshold = 3) => {
    const stall = findStall(window.slice(-stallWindow(threshold)), threshold);
    return stall ? stallDetailOf(stall) : null;
  };

  it('finds exact repeats, and says so', () => {
    expect(detail([calc('2 + 2'), calc(' 2 + 2'), calc('2 + 2 ')])).toBe(
      'repeat: the same calls in 3 iterations in a row: calculator {"expression":"2 + 2 "}',
    );
    expect(detail([calc('2 + 2'), calc('2 + 2')])).toBeNull();
  });

  it('finds paraphrased searches within stallThreshold iterations', () => {
    expect(detail([search('apple price'), search('price of apple'), search('Apple stock price')])).toBe(
      'near-repeat: nearly the same calls in 3 iterations in a row: search {"query":"apple price"} / ' +
        'search {"query":"price of apple"} / search {"query":"Apple stock price"}',
    );
    expect(detail([search('apple price'), search('price of apple')])).toBeNull();
  });

  it('needs every paraphrase to match every other, so a query that drifts is progress', () => {
    expect(detail([search('a1 bb cc dd ee ff'), search('bb cc dd ee ff gg'), search('cc dd ee ff gg hh')])).toBeNull();
  });

  it('finds cycles of 2 and 3 replies after stallThreshold - 1 repeated iterations', () => {
    const a = search('apple price');
    const b = calc('227.5 * 2');
    expect(detail([a, b, a])).toBeNull();
    expect(detail([a, b, a, b])).toBe(
      'cycle: 4 iterations went round the same 2 replies: search {"query":"apple price"} → calculator {"expression":"227.5 * 2"}',
    );
    const c = read('notes.txt');
    expect(detail([a, b, c, a, b])).toBe(
      'cycle: 5 iterations went round the same 3 replies: search {"query":"apple price"} → ' +
        'calculator {"expression":"227.5 * 2"} → read_file {"offset":0,"path":"notes.txt"}',
    );
    expect(detail([a, b, a, b], 4)).toBeNull();
    expect(detail([a, b, a, b, a], 4)).toMatch(/^cycle: 5 iterations went round the same 2 replies/);
  });

  it('finds a cycle of paraphrases', () => {
    expect(detail([search('apple price'), calc('1 + 1'), search('price of apple'), calc('1 + 1')])).toMatch(/^cycle: /);
  });

  it('lets real progress run: different expressions, paths, offsets and questions', () => {
    expect(detail([calc('2 + 2'), calc('3 + 3'), calc('4 + 4'), calc('5 + 5')])).toBeNull();
    expect(detail([read('a.txt'), read('b.txt'), read('c.txt')])).toBeNull();
    expect(detail([read('a.txt', 0), read('a.txt', 100), read('a.txt', 200), read('a.txt', 300)])).toBeNull();
    expect(
      detail([search('apple revenue 2021'), search('apple revenue 2022'), search('apple revenue 2023')]),
    ).toBeNull();
    expect(detail([search('apple price'), search('banana price'), search('cherry price')])).toBeNull();
    // Fetch, compute, fetch the next: a pattern, not a cycle, while the arguments move on.
    expect(detail([read('a.txt'), calc('1 + 1'), read('b.txt'), calc('2 + 2'), read('c.txt')])).toBeNull();
  });

  it('compares a reply too large to print exactly', () => {
    const big = (query: string) =>
      iterationPrint(
        Array.from({ length: 40 }, (_, index) => ({ tool: 'search', args: { query: `${query} ${index} words here` } })),
      );
    expect(detail([big('apple price'), big('price of apple'), big('apple price')])).toBeNull();
    expect(detail([big('apple price'), big('apple price'), big('apple price')])).toMatch(/^repeat: /);
  });
});
