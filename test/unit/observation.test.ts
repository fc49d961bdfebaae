import { eventText } from '../../src/shared/events';
import { wellFormed } from '../../src/shared/well-formed';
import { describe, it, expect } from 'vitest';
import {
  describeCall,
  errorObservation,
  estimateTokens,
  successObservation,
  truncateToTokens,
} from '../../src/shared/observation';

describe('estimateTokens', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['x'.repeat(400), 100],
  ])('estimates %j as %i tokens (about four characters each)', (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });
});

describe('truncateToTokens', () => {
  it('keeps text under the limit unchanged', () => {
    expect(truncateToTokens('short', 10)).toEqual({ text: 'short', truncated: false });
  });

  it('keeps text exactly at the limit unchanged', () => {
    const text = 'a'.repeat(40);
    expect(truncateToTokens(text, 10)).toEqual({ text, truncated: false });
  });

  it('cuts text over the limit, keeping the head and saying how many characters were dropped', () => {
    const text = `${'h'.repeat(40)}${'t'.repeat(25)}`;
    const result = truncateToTokens(text, 10);
    expect(result.truncated).toBe(true);
    expect(result.text).toBe(`${'h'.repeat(40)}\n… [truncated: 25 more characters]`);
  });

  it('counts a single extra character', () => {
    expect(truncateToTokens('abcde', 1)).toEqual({ text: 'abcd\n… [truncated: 1 more characters]', truncated: true });
  });
});

describe('describeCall', () => {
  it('renders arguments as compact JSON', () => {
    expect(describeCall('calculator', { expression: '2 + 2' })).toBe('calculator({"expression":"2 + 2"})');
  });

  it('renders string arguments as they are', () => {
    expect(describeCall('search', '{not json')).toBe('search({not json)');
  });

  it('renders missing arguments readably', () => {
    expect(describeCall('ping', undefined)).toBe('ping(undefined)');
    expect(describeCall('ping', null)).toBe('ping(null)');
  });

  it('shortens huge arguments to 200 characters plus an ellipsis', () => {
    const rendered = describeCall('write', { text: 'x'.repeat(1000) });
    expect(rendered).toBe(`write(${'{"text":"'}${'x'.repeat(191)}…)`);
    expect(rendered.length).toBe('write()'.length + 201);
  });

  it('honours a custom length', () => {
    expect(describeCall('echo', 'abcdefghij', 4)).toBe('echo(abcd…)');
    expect(describeCall('echo', 'abcd', 4)).toBe('echo(abcd)');
  });

  it('still describes arguments JSON cannot render', () => {
    expect(describeCall('count', 10n)).toBe('count(10)');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(describeCall('loop', circular)).toBe('loop([object Object])');
  });
});

describe('errorObservation', () => {
  it('prefixes the message with [error] and the call so the model sees what failed', () => {
    expect(errorObservation('calculator', { expression: '1/0' }, 'division by zero')).toEqual({
      text: '[error] calculator({"expression":"1/0"}): division by zero',
      isError: true,
      errorKind: 'tool_error',
      truncated: false,
    });
  });

  it('keeps the given error kind', () => {
    const observation = errorObservation('nope', {}, 'no tool named "nope"', 'unknown_tool');
    expect(observation.errorKind).toBe('unknown_tool');
    expect(observation.text).toBe('[error] nope({}): no tool named "nope"');
  });

  it('shortens huge arguments in the message', () => {
    const observation = errorObservation('write', 'y'.repeat(5000), 'too big', 'invalid_arguments');
    expect(observation.text).toBe(`[error] write(${'y'.repeat(200)}…): too big`);
  });
});

describe('a tool that throws a huge message', () => {
  it('leaves a bounded error observation, saying how much was cut', () => {
    const observation = errorObservation('fetch', { url: 'u' }, 'boom '.repeat(1_000_000));
    expect(observation.text.length).toBeLessThan(2300);
    expect(observation.text).toMatch(/… \[4998000 more characters\]$/);
  });
});

describe('successObservation', () => {
  it('keeps a string as text without data', () => {
    const observation = successObservation('Paris', 100);
    expect(observation).toEqual({ text: 'Paris', isError: false, truncated: false, rawTokens: 2 });
    expect(observation).not.toHaveProperty('data');
  });

  it('does not pretty-print a string that happens to be JSON', () => {
    expect(successObservation('{"a":1}', 100).text).toBe('{"a":1}');
  });

  it('renders JSON output compactly (fewer tokens) and keeps it as data', () => {
    const output = { city: 'Paris', population: 2_100_000, tags: ['capital'] };
    expect(successObservation(output, 100)).toEqual({
      text: '{"city":"Paris","population":2100000,"tags":["capital"]}',
      isError: false,
      data: output,
      truncated: false,
      rawTokens: 14, // 56 characters at four per token
    });
  });

  it.each([
    [42, '42'],
    [true, 'true'],
    [null, 'null'],
    [[], '[]'],
  ])('renders the JSON value %j as %j with data', (output, text) => {
    expect(successObservation(output, 100)).toEqual({
      text,
      isError: false,
      data: output,
      truncated: false,
      rawTokens: Math.ceil(text.length / 4),
    });
  });

  it('drops the data of JSON output too large to show whole: stored steps stay as bounded as what the model sees', () => {
    const output = {
      matches: Array.from({ length: 2000 }, (_, line) => ({ line, text: 'a matching line of the file' })),
    };
    const observation = successObservation(output, 100);
    expect(observation.truncated).toBe(true);
    expect(observation).not.toHaveProperty('data');
    expect(observation.text.length).toBeLessThan(500);
    expect(JSON.stringify(observation).length).toBeLessThan(1000);
  });

  it('truncates long text output', () => {
    const observation = successObservation('z'.repeat(100), 16);
    expect(observation.truncated).toBe(true);
    expect(observation.text).toBe(`${'z'.repeat(64)}\n… [truncated: 36 more characters]`);
    expect(observation.rawTokens).toBe(25); // the size before truncation
  });
});

describe('cuts between characters (N28)', () => {
  const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  it('never leaves half a surrogate pair where an observation or an event text is cut', () => {
    // 'A' then emoji: every cut position lands either side of or inside a pair.
    const text = `A${'😀'.repeat(40)}`;
    for (let tokens = 1; tokens < 20; tokens += 1) {
      expect(truncateToTokens(text, tokens).text).not.toMatch(lone);
    }
    for (let limit = 1; limit < 30; limit += 1) expect(eventText(text, limit)).not.toMatch(lone);
  });

  it('makes failure text well-formed', () => {
    expect(wellFormed('broken \ud800 text \udc00 end 😀')).toBe('broken \uFFFD text \uFFFD end 😀');
  });
});
