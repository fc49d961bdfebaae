import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLooseJson, stripCodeFence } from '../../src/shared/protocol';

const valueOf = (text: string): unknown => {
  const parsed = parseLooseJson(text);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(text)} to parse, got: ${parsed.error}`);
  return parsed.value;
};

const errorOf = (text: string): string => {
  const parsed = parseLooseJson(text);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(text)} to be refused, got ${JSON.stringify(parsed.value)}`);
  return parsed.error;
};

describe('parseLooseJson', () => {
  it('reads strict JSON as JSON.parse does, and says nothing was repaired', () => {
    expect(parseLooseJson('  {"expression": "2+2", "n": [1, 2.5e3, null]}\n')).toEqual({
      ok: true,
      value: { expression: '2+2', n: [1, 2500, null] },
      repaired: false,
    });
    expect(parseLooseJson('"just text"')).toEqual({ ok: true, value: 'just text', repaired: false });
  });

  it('agrees with JSON.parse on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value);
        expect(parseLooseJson(text)).toEqual({ ok: true, value: JSON.parse(text) as unknown, repaired: false });
      }),
    );
  });

  describe('prose around the value', () => {
    it('ignores prose after the object on the same line', () => {
      expect(parseLooseJson(`{"expression": "2+2"} I'll wait for the result.`)).toEqual({
        ok: true,
        value: { expression: '2+2' },
        repaired: true,
      });
    });

    it('ignores prose on the next lines', () => {
      expect(valueOf('{"query": "weather in Oslo"}\n\nThen I will summarise it.')).toEqual({
        query: 'weather in Oslo',
      });
    });

    it('takes the first complete value: braces inside strings and escaped quotes do not end it early', () => {
      expect(valueOf('{"text": "a } and a \\" quote", "list": [{"x": "]"}]} and {"not": "this"}')).toEqual({
        text: 'a } and a " quote',
        list: [{ x: ']' }],
      });
    });

    it('ignores anything after a complete object, whatever it is', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.string(), (value, prose) => {
          const text = JSON.stringify(value);
          expect(valueOf(`${text} ${prose}`)).toEqual(JSON.parse(text));
        }),
      );
    });

    it('skips prose before the first object', () => {
      expect(valueOf('Here are the arguments: {"city": "Oslo"}')).toEqual({ city: 'Oslo' });
    });

    it('refuses text after a number or string instead of reading `2+2` as 2', () => {
      expect(errorOf('2+2')).toBe('text follows the value at position 1 ("+2"); one value is expected');
    });

    it('says there is no JSON at all in plain text', () => {
      expect(errorOf('the capital of France')).toBe(
        'no JSON value found (expected an object such as {"key": "value"})',
      );
    });
  });

  describe('code fences', () => {
    it('reads a ```json fence', () => {
      expect(parseLooseJson('```json\n{"a": 1}\n```')).toEqual({ ok: true, value: { a: 1 }, repaired: true });
    });

    it('reads a bare fence, on one line too', () => {
      expect(valueOf('```\n[1, 2]\n```')).toEqual([1, 2]);
      expect(valueOf('```{"a": 1}```')).toEqual({ a: 1 });
    });

    it('reads a fence with prose before and after it', () => {
      expect(valueOf('Sure:\n```json\n{"a": 1}\n```\nLet me know.')).toEqual({ a: 1 });
    });

    it('reads a fence the reply was cut off in', () => {
      expect(valueOf('```json\n{"a": 1}\n')).toEqual({ a: 1 });
    });

    it('does not mistake a fenced snippet inside a string value for a fence around the value', () => {
      expect(valueOf('{"code": "```py\\nprint(1)\\n```"} as requested')).toEqual({ code: '```py\nprint(1)\n```' });
    });

    it('says when the fence is empty', () => {
      expect(errorOf('```json\n```')).toBe('the code block is empty');
    });

    it('stripCodeFence gives the content of the first fence, or the text when there is none', () => {
      expect(stripCodeFence('```text\nhello\n```')).toBe('hello');
      expect(stripCodeFence('  no fence ')).toBe('no fence');
    });
  });

  describe('Python dict literals', () => {
    it('reads single quotes and True/False/None', () => {
      expect(parseLooseJson("{'expression': '2+2', 'exact': True, 'strict': False, 'x': None}")).toEqual({
        ok: true,
        value: { expression: '2+2', exact: true, strict: false, x: null },
        repaired: true,
      });
    });

    it('reads escaped quotes inside single-quoted strings', () => {
      expect(valueOf("{'text': 'it\\'s \"fine\"'}")).toEqual({ text: `it's "fine"` });
    });

    it('keeps apostrophes and Python words inside double-quoted strings as they are', () => {
      expect(valueOf(`{"text": "don't say 'True' or None", 'ok': True}`)).toEqual({
        text: "don't say 'True' or None",
        ok: true,
      });
    });

    it('reads an unescaped apostrophe inside a single-quoted string as the model meant it', () => {
      expect(valueOf("{'name': 'O'Brien', 'note': 'it's ok'}")).toEqual({ name: "O'Brien", note: "it's ok" });
    });

    it('reads nested dicts and lists with trailing commas', () => {
      expect(valueOf("{'a': [1, 2, ], 'b': {'c': 'd',},}")).toEqual({ a: [1, 2], b: { c: 'd' } });
    });

    it('reads \\x escapes and keeps unknown escapes with their backslash', () => {
      expect(valueOf("{'letter': '\\x41', 'pattern': '\\d+\\.\\w'}")).toEqual({ letter: 'A', pattern: '\\d+\\.\\w' });
    });
  });

  describe('other repairs', () => {
    it('reads trailing commas', () => {
      expect(valueOf('{"a": 1, "b": [true, false,],}')).toEqual({ a: 1, b: [true, false] });
    });

    it('reads bare keys and `key=value` pairs', () => {
      expect(valueOf('{expression: "2+2", limit: 3}')).toEqual({ expression: '2+2', limit: 3 });
      expect(valueOf('{expression="2+2", limit=3}')).toEqual({ expression: '2+2', limit: 3 });
    });

    it('skips comments', () => {
      expect(valueOf('{\n  "a": 1, // the first\n  /* the second */ "b": 2\n}')).toEqual({ a: 1, b: 2 });
    });

    it('reads raw newlines inside strings', () => {
      expect(valueOf('{"code": "line 1\nline 2"}')).toEqual({ code: 'line 1\nline 2' });
    });

    it('reads a double quote that is plainly part of the text', () => {
      expect(valueOf('{"title": "the "best" one"}')).toEqual({ title: 'the "best" one' });
    });

    it('keeps "__proto__" as a key, as JSON.parse does, never as the prototype', () => {
      const value = valueOf('{"__proto__": {"polluted": true},}') as Record<string, unknown>;
      expect(Object.keys(value)).toEqual(['__proto__']);
      expect((value as { polluted?: unknown }).polluted).toBeUndefined();
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    });
  });

  describe('what it cannot read, and says precisely', () => {
    it('names the place and what was expected', () => {
      expect(errorOf('{expression: 2+2}')).toBe(
        'expected "," or "}" after the value of "expression" at position 14, found "+2}"',
      );
      expect(errorOf('{"a" 1}')).toBe('expected ":" after the property name "a" at position 5, found "1}"');
      expect(errorOf('{"a": hello}')).toBe(
        'expected a JSON value (text needs double quotes) at position 6, found "hello}"',
      );
    });

    it('says when the JSON was cut off', () => {
      expect(errorOf('{"query": "capital of')).toBe(
        'the text ends before the JSON does (expected the closing " of a string)',
      );
      expect(errorOf('{"a": [1, 2')).toBe(
        'the text ends before the JSON does (expected "," or "]" after item 2 of the list)',
      );
    });

    it('refuses empty text', () => {
      expect(errorOf('  \n')).toBe('the text is empty');
    });

    it('refuses nesting deep enough to threaten the stack', () => {
      expect(errorOf('['.repeat(100_000))).toBe('the JSON is nested more than 200 levels deep');
    });

    it('never throws, whatever the text', () => {
      const pieces = fc.oneof(
        fc.string(),
        fc.constantFrom('{', '}', '[', ']', '"', "'", ':', ',', '\\', '```', 'None'),
      );
      fc.assert(
        fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
          const parsed = parseLooseJson(parts.join(''));
          expect(parsed.ok ? 'value' in parsed : parsed.error.length > 0).toBe(true);
        }),
        { numRuns: 2000 },
      );
    });
  });
});
