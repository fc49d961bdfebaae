import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { textTool } from '../../../src/worker/tools/builtin/text';
import { runTool } from './helpers';

describe('text tool', () => {
  it.each([
    [{ operation: 'length', text: 'strawberry' }, 10],
    [{ operation: 'length', text: 'héllo 👋' }, 7],
    [{ operation: 'upper', text: 'Hello, World' }, 'HELLO, WORLD'],
    [{ operation: 'lower', text: 'Hello, World' }, 'hello, world'],
    [{ operation: 'trim', text: '  \n padded \t ' }, 'padded'],
    [{ operation: 'replace', text: 'a-b-c', search: '-', replacement: '+' }, 'a+b+c'],
    [{ operation: 'replace', text: 'a.b.c', search: '.', replacement: '' }, 'abc'],
    // "$&" and "$1" are special to String.replace; here they must come out verbatim.
    [{ operation: 'replace', text: 'cost: 5', search: '5', replacement: '$& and $1' }, 'cost: $& and $1'],
    [{ operation: 'split', text: 'red,green,blue', separator: ',' }, ['red', 'green', 'blue']],
    [{ operation: 'split', text: 'a👋b', separator: '' }, ['a', '👋', 'b']],
  ])('%j', async (args, expected) => {
    await expect(runTool(textTool, args)).resolves.toEqual({ operation: args.operation, result: expected });
  });

  it('treats the search text literally, not as a regular expression', async () => {
    const args = { operation: 'replace', text: 'x+y = (x+y)', search: '(x+y)', replacement: 'z' };
    await expect(runTool(textTool, args)).resolves.toEqual({ operation: 'replace', result: 'x+y = z' });
  });

  it.each([
    [{ operation: 'replace', text: 'abc', search: 'b' }, "replace needs 'search' and 'replacement'", 'replacement'],
    [{ operation: 'replace', text: 'abc' }, "replace needs 'search' and 'replacement'", 'search'],
    [
      { operation: 'replace', text: 'abc', search: '', replacement: '-' },
      "replace needs a non-empty 'search'",
      'search',
    ],
    [{ operation: 'split', text: 'a,b' }, "split needs 'separator'", 'separator'],
  ])('names the missing field for %j', (args, message, field) => {
    const parsed = textTool.schema.safeParse(args);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toEqual([expect.objectContaining({ message, path: [field] })]);
  });

  it('rejects an unknown operation', () => {
    expect(textTool.schema.safeParse({ operation: 'reverse', text: 'abc' }).success).toBe(false);
  });

  it('exposes an object at the root of its JSON schema, as OpenAI function calling requires', () => {
    const schema = z.toJSONSchema(textTool.schema, { io: 'input' });
    expect(schema.type).toBe('object');
    expect(schema).not.toHaveProperty('oneOf');
    expect(schema).not.toHaveProperty('anyOf');
    expect(schema.required).toEqual(['operation', 'text']);
  });
});
