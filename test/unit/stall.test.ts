import { describe, it, expect } from 'vitest';
import {
  callSignature,
  iterationSignature,
  normalizeArgs,
  stallDetail,
  trailingRepeats,
} from '../../src/workflow/stall';

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

describe('trailingRepeats', () => {
  it.each([
    [[], 0],
    [['a'], 1],
    [['a', 'b'], 1],
    [['a', 'b', 'b'], 2],
    [['b', 'b', 'a'], 1],
    [['a', 'a', 'a'], 3],
    [['a', 'a', 'b', 'a', 'a'], 2],
  ])('counts %j as %i', (signatures, count) => {
    expect(trailingRepeats(signatures)).toBe(count);
  });

  it('counts repeats of equivalent calls', () => {
    const signatures = [
      callSignature('search', { q: 'Paris' }),
      callSignature('search', { q: 'paris ' }),
      callSignature('search', { q: ' PARIS' }),
    ];
    expect(trailingRepeats(signatures)).toBe(3);
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
    expect(trailingRepeats([iterationSignature([two, two, two])])).toBe(1);
    expect(trailingRepeats([two, two, two])).toBe(3); // what counting calls saw
  });
});

describe('stallDetail', () => {
  it.each([
    [['calculator'], 3, 'calculator was called with the same arguments in 3 iterations in a row'],
    [['calculator', 'calculator'], 4, 'calculator was called with the same arguments in 4 iterations in a row'],
    [
      ['search', 'calculator', 'search'],
      3,
      'search and calculator were called with the same arguments in 3 iterations in a row',
    ],
    [['a', 'b', 'c'], 2, 'a, b and c were called with the same arguments in 2 iterations in a row'],
  ])('names %j and %i iterations', (tools, iterations, detail) => {
    expect(stallDetail(tools, iterations)).toBe(detail);
  });
});
