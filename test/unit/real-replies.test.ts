import fc from 'fast-check';
import { type ApplicationFailure } from '@temporalio/common';
import { APIError } from 'openai';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from '../../src/shared/config';
import { DEFAULT_CONTEXT_WINDOW, knownContextWindow } from '../../src/shared/context-windows';
import {
  MAX_THOUGHT_CHARS,
  readNativeReply,
  readTextReply,
  splitReasoning,
  type ModelReply,
} from '../../src/shared/protocol';
import { readCompletion } from '../../src/worker/activities/completion-reader';
import { StreamAssembly } from '../../src/worker/activities/stream-assembly';
import { classifyModelError, statedContextWindow, UnreadableReply } from '../../src/worker/activities/model-errors';
import { thoughtPolicy, validateThought } from '../../src/workflow/thinking/thought';

const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 };
const tags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
const endpoint = { baseURL: 'http://127.0.0.1:9/v1', model: 'm' };
const callsOf = (reply: ModelReply) => (reply.type === 'tool_calls' ? reply.calls : []);

/** The failure a reply that cannot be read becomes, as the activity throws it. */
function failureOf(action: () => unknown): ApplicationFailure {
  try {
    action();
  } catch (error) {
    if (!(error instanceof UnreadableReply)) throw error;
    return classifyModelError(error, endpoint) as ApplicationFailure;
  }
  throw new Error('expected a classified failure');
}

describe('splitReasoning', () => {
  it.each([
    ['<think>\nI add them.\n</think>\n\n4', 'I add them.', '4'],
    ['<thinking>check units</thinking>The answer is 3 m.', 'check units', 'The answer is 3 m.'],
    // DeepSeek-R1's template opens the block in the prompt: only the closing tag comes back.
    ['The user wants a sum.\n</think>\n\n7', 'The user wants a sum.', '7'],
    // Cut off while reasoning: the block never closes, and there is no answer.
    ['<think>First I need to', 'First I need to', ''],
    ['<think></think>Paris', '', 'Paris'],
    ['No tags at all.', '', 'No tags at all.'],
    // Only a leading block is reasoning: an answer that mentions the tags keeps every word.
    ['Wrap reasoning in <think> tags, like R1 does.', '', 'Wrap reasoning in <think> tags, like R1 does.'],
    ['The tag `</think>` closes the block. Done.', '', 'The tag `</think>` closes the block. Done.'],
    ['<think>plan</think>Answer with <thinking> in it', 'plan', 'Answer with <thinking> in it'],
    ['```html\n<think>x</think>\n```', '', '```html\n<think>x</think>\n```'],
  ])('splits %j', (content, reasoning, text) => {
    expect(splitReasoning(content)).toEqual({ reasoning, text });
  });
});

describe('readNativeReply with reasoning', () => {
  it('takes a reasoning field as the thought of a call with no text', () => {
    const reply = readNativeReply(
      '',
      [{ id: 'a', name: 'calculator', argumentsText: '{"expression":"2+2"}' }],
      usage,
      'Two and two; the calculator is exact.',
    );
    expect(reply.type).toBe('tool_calls');
    expect(reply.thought).toBe('Two and two; the calculator is exact.');
    expect(reply.assistantMessage.content).toBe('');
  });

  it('never lets a <think> block into the final answer', () => {
    const reply = readNativeReply('<think>The capital of France is Paris.</think>\n\nParis.', [], usage);
    expect(reply).toMatchObject({
      type: 'final_answer',
      answer: 'Paris.',
      thought: 'The capital of France is Paris.',
      reasoningChars: 'The capital of France is Paris.'.length,
    });
    expect(reply.assistantMessage.content).toBe('Paris.');
  });

  it('tells a model whose reply was only reasoning to act', () => {
    const reply = readNativeReply('<think>Hmm, maybe</think>', [], usage);
    expect(reply).toMatchObject({ type: 'malformed' });
    expect(reply.type === 'malformed' && reply.problem).toContain('reasoning but no answer');
  });

  it('keeps only the end of a very long reasoning', () => {
    const reasoning = `${'a'.repeat(10_000)} so I call the calculator`;
    const reply = readNativeReply('', [{ id: 'a', name: 'calculator', argumentsText: '{}' }], usage, reasoning);
    expect(reply.thought.endsWith('so I call the calculator')).toBe(true);
    expect(reply.thought.length).toBeLessThan(MAX_THOUGHT_CHARS + 100);
    expect(reply.thought).toMatch(/^\[… \d+ earlier characters not kept\]/);
  });

  it('reads text mode after a <think> block', () => {
    const content =
      '<think>small model musing</think>\nThought: I need the sum.\nAction: calculator\nAction Input: {"expression": "1+1"}';
    const reply = readTextReply(content, tags, 'r1', usage);
    expect(reply.type).toBe('tool_calls');
    expect(reply.thought).toBe('small model musing\n\nI need the sum.');
    expect(callsOf(reply)[0]?.args).toEqual({ expression: '1+1' });
  });
});

describe('readCompletion', () => {
  const completion = (message: object, extra: object = {}) => ({
    id: 'x',
    choices: [{ index: 0, finish_reason: 'tool_calls', message }],
    ...extra,
  });

  it('serialises arguments a server sent as an object, and keeps only IDs the server gave once', () => {
    const read = readCompletion(
      completion({
        content: null,
        tool_calls: [
          { id: 'same', function: { name: 'search', arguments: { query: 'Lyon' } } },
          { id: 'same', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1"}' } },
          { function: { name: 'calculator', arguments: null } },
        ],
      }),
      endpoint,
    );
    expect(read.toolCalls).toEqual([
      { id: 'same', name: 'search', argumentsText: '{"query":"Lyon"}' },
      // A repeated ID and a missing one are '': the loop makes one up that every server accepts.
      { id: '', name: 'calculator', argumentsText: '{"expression":"1"}' },
      { id: '', name: 'calculator', argumentsText: '' },
    ]);
    expect(read.content).toBe('');
  });

  it.each([
    [{ reasoning_content: 'R' }, 'R'],
    [{ reasoning: 'R' }, 'R'],
    [{ reasoning_details: [{ type: 'reasoning.text', text: 'R' }] }, 'R'],
  ])('reads reasoning sent apart (%j)', (fields, reasoning) => {
    expect(readCompletion(completion({ content: 'A', ...fields }), endpoint).reasoning).toBe(reasoning);
  });

  it('reads content sent as parts', () => {
    const read = readCompletion(
      completion({
        content: [
          { type: 'text', text: 'Hello ' },
          { type: 'text', text: 'there' },
        ],
      }),
      endpoint,
    );
    expect(read.content).toBe('Hello there');
  });

  it('refuses an HTML page at once, naming the URL to check', () => {
    const failure = failureOf(() => readCompletion('<!DOCTYPE html><html><body>Login</body></html>', endpoint));
    expect(failure.type).toBe('ModelBadResponseError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.message).toContain('Check OPENAI_BASE_URL');
  });

  it('treats an error object in a 200 body as the error it describes', () => {
    const busy = failureOf(() =>
      readCompletion({ error: { code: 502, message: 'Provider returned error' } }, endpoint),
    );
    expect(busy.type).toBe('ModelUnavailableError');
    expect(busy.nonRetryable).toBe(false);
    const limited = failureOf(() => readCompletion({ error: { code: 429, message: 'Rate limit exceeded' } }, endpoint));
    expect(limited.type).toBe('ModelRateLimitedError');
  });

  it('never throws anything but a classified failure, and its result always reads', () => {
    const json = fc.jsonValue();
    const body = fc.oneof(
      json,
      fc.string(),
      fc.record({ choices: fc.array(fc.record({ message: json, finish_reason: json }, { requiredKeys: [] })) }),
      fc.record({
        choices: fc.constant([{}]).map(() => [
          {
            message: {},
          },
        ]),
        usage: json,
      }),
      fc
        .array(
          fc.record({
            id: json,
            type: json,
            function: fc.record({ name: json, arguments: json }, { requiredKeys: [] }),
          }),
          { maxLength: 3 },
        )
        .map((calls) => ({
          choices: [{ message: { content: null, tool_calls: calls } }],
        })),
    );
    fc.assert(
      fc.property(body, fc.constantFrom('native', 'text'), (raw, mode) => {
        let read;
        try {
          read = readCompletion(raw, endpoint);
        } catch (error) {
          expect(error).toBeInstanceOf(UnreadableReply);
          expect((classifyModelError(error, endpoint) as ApplicationFailure).type).toMatch(/^Model\w+Error$/);
          return;
        }
        const reply =
          mode === 'native'
            ? readNativeReply(read.content, read.toolCalls, usage, read.reasoning)
            : readTextReply(read.content, tags, read.id, usage, read.reasoning);
        expect(['tool_calls', 'final_answer', 'clarification', 'malformed']).toContain(reply.type);
      }),
      { numRuns: 500 },
    );
  });
});

describe('context-length errors', () => {
  const refusal = (status: number, body: object) => APIError.generate(status, body, undefined, new Headers());

  it.each([
    [
      'OpenAI',
      400,
      {
        error: {
          message:
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
          code: 'context_length_exceeded',
        },
      },
      8192,
    ],
    [
      'vLLM',
      400,
      {
        // As fetchKeepingErrorBodies hands it to the client: vLLM's top-level fields under `error`.
        error: {
          object: 'error',
          message:
            "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion).",
          code: 400,
        },
      },
      4096,
    ],
    [
      'llama.cpp',
      400,
      {
        error: {
          code: 400,
          message: 'the request exceeds the available context size, try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 5000,
          n_ctx: 4096,
        },
      },
      4096,
    ],
    [
      'TGI',
      422,
      {
        error:
          'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. Given: 4000 `inputs` tokens and 1000 `max_new_tokens`',
        error_type: 'validation',
      },
      4096,
    ],
  ])('recognises %s (HTTP %i) and reads the window it states', (_server, status, body, window) => {
    const failure = classifyModelError(refusal(status, body), endpoint) as ApplicationFailure;
    expect(failure.type).toBe('ModelContextLengthExceededError');
    expect(failure.nonRetryable).toBe(true);
    expect(failure.details?.[0]).toEqual({ contextWindow: window });
  });

  it('leaves other 400s as bad requests', () => {
    const failure = classifyModelError(
      refusal(400, { error: { message: 'temperature must be <= 2' } }),
      endpoint,
    ) as ApplicationFailure;
    expect(failure.type).toBe('ModelBadRequestError');
  });

  it('reads no size where none is stated', () => {
    expect(statedContextWindow('prompt is too long')).toBeUndefined();
  });

  it('refuses a body the client could not parse without retrying', () => {
    const failure = classifyModelError(new SyntaxError('Unexpected token < in JSON'), endpoint) as ApplicationFailure;
    expect(failure.type).toBe('ModelBadResponseError');
    expect(failure.nonRetryable).toBe(true);
  });
});

describe('known context windows', () => {
  it.each([
    ['gpt-4o-mini', 128_000],
    ['openai/gpt-4o', 128_000],
    ['llama3.1:8b', 131_072],
    ['meta-llama/Llama-3.1-8B-Instruct', 131_072],
    ['qwen2.5:7b', 32_768],
    ['deepseek-reasoner', 65_536],
  ])('knows %s', (model, window) => {
    expect(knownContextWindow(model)).toBe(window);
  });

  it('assumes the default for a name it does not know', () => {
    expect(knownContextWindow('my-finetune')).toBeUndefined();
    expect(agentConfigSchema.parse({}).modelSettings.contextWindow).toBeUndefined();
    expect(DEFAULT_CONTEXT_WINDOW).toBe(32_768);
  });
});

describe("requireThought: 'auto'", () => {
  const config = agentConfigSchema.parse({});

  it('is the default', () => {
    expect(config.thoughts.require).toBe('auto');
    expect(thoughtPolicy(config)).toBe('auto');
    expect(thoughtPolicy(agentConfigSchema.parse({ thoughts: { require: true } }))).toBe('strict');
    expect(thoughtPolicy(agentConfigSchema.parse({ thoughts: { require: false } }))).toBe('off');
  });

  it('runs a call that came with no thought at all', () => {
    expect(validateThought('', config, ['calculator'], 'auto')).toBeNull();
    expect(validateThought('', config, ['calculator'], 'strict')).toMatch(/no thought/);
  });

  it('sends a degenerate thought back once, never twice in a row', () => {
    expect(validateThought('Using the calculator.', config, ['calculator'], 'auto')).toMatch(/only names an action/);
    expect(validateThought('Using the calculator.', config, ['calculator'], 'auto', true)).toBeNull();
    expect(validateThought('Using the calculator.', config, ['calculator'], 'strict', true)).toMatch(/only names/);
  });
});

describe('StreamAssembly', () => {
  const callsOf = (pieces: object[]) => {
    const assembly = new StreamAssembly();
    for (const piece of pieces) assembly.add({ tool_calls: [piece] }, null);
    return (assembly.message().tool_calls as Array<{ id: string; function: { name: string; arguments: string } }>).map(
      (call) => [call.id, call.function.name, call.function.arguments],
    );
  };

  it('builds one call from indexed pieces, however the server repeats its ID or name', () => {
    expect(
      callsOf([
        { index: 0, id: 'a', function: { name: 'calculator', arguments: '' } },
        { index: 0, id: 'b', function: { arguments: '{"expression":' } },
        { index: 0, id: 'c', function: { name: 'calculator', arguments: '"2+2"}' } },
      ]),
    ).toEqual([['a', 'calculator', '{"expression":"2+2"}']]);
  });

  it('starts a new call for a named piece with another ID at a taken index (Ollama) and for parallel indexes', () => {
    expect(
      callsOf([
        { index: 0, id: 'x', function: { name: 'search', arguments: '{"query":"a"}' } },
        { index: 0, id: 'y', function: { name: 'search', arguments: '{"query":"b"}' } },
        { index: 1, id: 'z', function: { name: 'calculator', arguments: '{}' } },
      ]),
    ).toEqual([
      ['x', 'search', '{"query":"a"}'],
      ['y', 'search', '{"query":"b"}'],
      ['z', 'calculator', '{}'],
    ]);
  });

  it('reads whole calls sent without an index, arguments as objects', () => {
    expect(
      callsOf([
        { function: { name: 'search', arguments: { query: 'a' } } },
        { function: { name: 'calculator', arguments: { expression: '1' } } },
      ]),
    ).toEqual([
      ['', 'search', '{"query":"a"}'],
      ['', 'calculator', '{"expression":"1"}'],
    ]);
  });
});
