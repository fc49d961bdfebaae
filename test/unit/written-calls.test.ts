import { describe, expect, it } from 'vitest';
import { readWrittenCalls } from '../../src/shared/protocol/written-calls';
import { readErrorBody } from '../../src/worker/activities/error-body';

const offered = new Set(['calculator', 'search', 'final_answer']);
const callsOf = (text: string) => {
  const read = readWrittenCalls(text, offered);
  return read && 'calls' in read
    ? read.calls.map((call): unknown[] => [call.name, JSON.parse(call.argumentsText) as unknown])
    : read;
};

describe('calls written as text', () => {
  it.each([
    ['<tool_call>\n{"name": "search", "arguments": {"query": "x"}}\n</tool_call>', [['search', { query: 'x' }]]],
    // Left open: the server stopped at the closing tag.
    ['Looking it up.\n<tool_call>\n{"name": "search", "arguments": {"query": "x"}}', [['search', { query: 'x' }]]],
    [
      '<tool_call>{"name": "search", "arguments": {"query": "a"}}</tool_call>\n<tool_call>{"name": "calculator", "arguments": {"expression": "1"}}</tool_call>',
      [
        ['search', { query: 'a' }],
        ['calculator', { expression: '1' }],
      ],
    ],
    // Mistral's raw output is a Python literal, single quotes and all.
    [
      "[TOOL_CALLS][{'name': 'calculator', 'arguments': {'expression': '2*3'}}]",
      [['calculator', { expression: '2*3' }]],
    ],
    ['[TOOL_CALLS]search[ARGS]{"query": "y"}', [['search', { query: 'y' }]]],
    ['```json\n{"name": "calculator", "parameters": {"expression": "4"}}\n```', [['calculator', { expression: '4' }]]],
    [
      '{"type": "function", "function": {"name": "search", "arguments": "{\\"query\\": \\"z\\"}"}}',
      [['search', { query: 'z' }]],
    ],
    ['<|python_tag|>{"name": "search", "parameters": {"query": "q"}}<|eom_id|>', [['search', { query: 'q' }]]],
    ['{"name": "final_answer", "arguments": {"answer": "42"}}', [['final_answer', { answer: '42' }]]],
  ])('reads %j', (text, calls) => {
    expect(callsOf(text)).toEqual(calls);
  });

  it.each([
    'Paris is the capital of France.',
    // JSON that names no offered tool is an answer (an output schema's object, say).
    '{"name": "Ada Lovelace", "parameters": {"born": 1815}}',
    '{"city": "Paris"}',
    // The tag mentioned in prose, not a call.
    'Hermes models wrap calls in <tool_call> tags; the server parses them.',
    // A call quoted in the middle of an answer is not the whole text.
    'You could call {"name": "search", "arguments": {"query": "x"}} yourself.',
  ])('leaves %j as text', (text) => {
    expect(readWrittenCalls(text, offered)).toBeUndefined();
  });

  it.each([
    '<tool_call>\n{"name": "calculator", "arguments": {"expression": \n</tool_call>',
    '[TOOL_CALLS] not a call at all',
    '<|python_tag|>brave_search.call(query="x")',
  ])('asks for a native call when %j cannot be read', (text) => {
    expect(readWrittenCalls(text, offered)).toEqual({ problem: expect.stringContaining('native tool call') as string });
  });
});

describe('error bodies in any shape', () => {
  it.each([
    ['{"error": {"message": "bad", "code": "x"}}', 'application/json', { message: 'bad', code: 'x' }],
    [
      '[{"error": {"code": 400, "message": "too long", "status": "INVALID_ARGUMENT"}}]',
      'application/json',
      {
        code: 400,
        message: 'too long',
        status: 'INVALID_ARGUMENT',
      },
    ],
    [
      '{"error": "Insufficient balance", "status": 402}',
      'application/json',
      {
        message: 'Insufficient balance',
        status: 402,
      },
    ],
    [
      '{"object": "error", "message": "flat", "code": 400}',
      'application/json',
      {
        object: 'error',
        message: 'flat',
        code: 400,
      },
    ],
    ['{"detail": "Not Found"}', 'application/json', { message: 'Not Found' }],
    [
      '{"detail": [{"loc": ["body", "model"], "msg": "Field required"}]}',
      'application/json',
      {
        message: 'body.model: Field required',
      },
    ],
    ['Internal Server Error', 'text/plain', { message: 'Internal Server Error' }],
    [
      '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>',
      'text/html',
      {
        message: 'an HTML page ("502 Bad Gateway")',
      },
    ],
    ['', 'text/plain', { message: '(an empty body)' }],
    ['{"unexpected": true}', 'application/json', { message: '{"unexpected":true}' }],
  ])('reads %j', (text, contentType, error) => {
    expect(readErrorBody(text, contentType).error).toEqual(error);
  });

  it("takes the wait from Google's RetryInfo", () => {
    const body = JSON.stringify([
      { error: { code: 429, message: 'quota', details: [{ '@type': 'x.RetryInfo', retryDelay: '1.5s' }] } },
    ]);
    expect(readErrorBody(body, 'application/json').retryAfterMs).toBe(1500);
  });

  it('keeps no more than 1,000 characters of a long body', () => {
    expect(String(readErrorBody('x'.repeat(50_000), 'text/plain').error.message).length).toBeLessThanOrEqual(1001);
  });
});
