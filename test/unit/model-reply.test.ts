import { describe, it, expect } from 'vitest';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { readNativeReply, readTextReply } from '../../src/shared/protocol';
import { readUsage } from '../../src/worker/activities/usage';
import type { ModelReply, ModelToolCall, TextTags } from '../../src/shared/protocol';

const usage = { promptTokens: 120, completionTokens: 30, totalTokens: 150 };
const tags: TextTags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
const toolCall = (id: string, name: string, argumentsText: string): ModelToolCall => ({ id, name, argumentsText });
const callsOf = (reply: ModelReply) => (reply.type === 'tool_calls' ? reply.calls : []);

describe('readNativeReply', () => {
  it('takes text without tool calls as the final answer', () => {
    expect(readNativeReply('  Paris is the capital.  ', [], usage)).toEqual({
      type: 'final_answer',
      thought: 'Paris is the capital.',
      answer: 'Paris is the capital.',
      confidence: null,
      usage,
      // The text goes back to the model without its surrounding space (and without any <think> block).
      assistantMessage: { role: 'assistant', content: 'Paris is the capital.' },
    });
  });

  it.each(['', '  \n '])('refuses an empty reply (%j) with a message the model can act on', (content) => {
    expect(readNativeReply(content, [], usage)).toMatchObject({
      type: 'malformed',
      problem: 'Your reply was empty. Call a tool or give the final answer.',
    });
  });

  it('parses every tool call and keeps the text as the thought', () => {
    const calls = [
      toolCall('call-1', 'search', '{"query": "Lyon"}'),
      toolCall('call-2', 'calculator', '{"expression": "1+1"}'),
    ];
    const reply = readNativeReply('I need the population first.', calls, usage);
    expect(reply.thought).toBe('I need the population first.');
    expect(reply.type).toBe('tool_calls');
    expect(callsOf(reply)).toEqual([
      { callId: 'call-1', tool: 'search', argumentsText: '{"query": "Lyon"}', args: { query: 'Lyon' } },
      { callId: 'call-2', tool: 'calculator', argumentsText: '{"expression": "1+1"}', args: { expression: '1+1' } },
    ]);
    expect(reply.assistantMessage).toEqual({
      role: 'assistant',
      content: 'I need the population first.',
      toolCalls: calls,
    });
  });

  it('gives empty arguments to a call with no arguments text', () => {
    const reply = readNativeReply('Listing is the first step.', [toolCall('c', 'list_files', '  ')], usage);
    expect(callsOf(reply)[0]?.args).toEqual({});
    expect(callsOf(reply)[0]?.parseError).toBeUndefined();
  });

  it('reports bad JSON arguments as a parse error instead of failing the reply', () => {
    const reply = readNativeReply('Searching.', [toolCall('c', 'search', '{"query": ')], usage);
    expect(reply.type).toBe('tool_calls');
    expect(callsOf(reply)).toHaveLength(1);
    const [call] = callsOf(reply);
    expect(call?.tool).toBe('search');
    expect(call?.argumentsText).toBe('{"query": ');
    expect(call?.args).toBeUndefined();
    expect(call?.parseError).toMatch(/^the arguments are not valid JSON \(.+\)$/);
  });

  describe('the final_answer tool', () => {
    const finalCall = (argumentsText: string) =>
      readNativeReply('', [toolCall('f', 'final_answer', argumentsText)], usage);

    it('takes its answer as the final answer', () => {
      expect(finalCall('{"answer": "42"}')).toMatchObject({ type: 'final_answer', answer: '42' });
    });

    it('renders a non-string answer as JSON', () => {
      expect(finalCall('{"answer": {"city": "Paris", "rank": 1}}')).toMatchObject({
        answer: '{"city":"Paris","rank":1}',
      });
      expect(finalCall('{"answer": 42}')).toMatchObject({ answer: '42' });
      expect(finalCall('{"answer": false}')).toMatchObject({ answer: 'false' });
    });

    it.each([
      ['{}', 'final_answer needs {"answer": "..."}; got {}'],
      ['{"answer": null}', 'final_answer needs {"answer": "..."}; got {"answer": null}'],
      ['{"text": "42"}', 'final_answer needs {"answer": "..."}; got {"text": "42"}'],
      ['', 'final_answer needs {"answer": "..."}; got nothing'],
      ['{"answer": ', 'final_answer needs {"answer": "..."}; got {"answer": '],
    ])('refuses %j without an answer', (argumentsText, message) => {
      expect(finalCall(argumentsText)).toMatchObject({ type: 'malformed', problem: message });
    });

    // Text mode refuses an empty final answer too ("Your final answer is empty").
    it.each(['{"answer": ""}', '{"answer": "   "}'])('refuses the blank answer %j', (argumentsText) => {
      expect(finalCall(argumentsText).type).toBe('malformed');
    });

    it('wins over other calls in the same reply', () => {
      const calls = [toolCall('a', 'search', '{"query": "x"}'), toolCall('b', 'final_answer', '{"answer": "done"}')];
      expect(readNativeReply('Enough information now.', calls, usage)).toMatchObject({
        type: 'final_answer',
        answer: 'done',
      });
    });
  });
});

describe('readTextReply', () => {
  it('turns the action into one tool call whose id derives from the response id', () => {
    const content = 'Thought: I need the weather.\nAction: weather\nAction Input: {"city": "Oslo"}';
    expect(readTextReply(content, tags, 'chatcmpl-9', usage)).toEqual({
      type: 'tool_calls',
      thought: 'I need the weather.',
      calls: [{ callId: 'chatcmpl-9-0', tool: 'weather', argumentsText: '{"city": "Oslo"}', args: { city: 'Oslo' } }],
      usage,
      assistantMessage: { role: 'assistant', content },
    });
  });

  it('keeps a parse error on the call', () => {
    const reply = readTextReply('Thought: Go.\nAction: search\nAction Input: {oops}', tags, 'r1', usage);
    expect(callsOf(reply)[0]?.callId).toBe('r1-0');
    expect(callsOf(reply)[0]?.parseError).toContain('not valid JSON');
  });

  it('reads a final answer', () => {
    const reply = readTextReply('Thought: I know it.\nFinal Answer: Oslo is cold.', tags, 'r2', usage);
    expect(reply).toMatchObject({ type: 'final_answer', thought: 'I know it.', answer: 'Oslo is cold.' });
  });

  it('passes on why a reply could not be understood', () => {
    const reply = readTextReply('Just some musing.', tags, 'r3', usage);
    expect(reply.type).toBe('malformed');
    expect(reply.type === 'malformed' && reply.problem).toContain('no "Action:" and no "Final Answer:" line');
  });

  it('treats an Action of final_answer with an answer as the final answer', () => {
    const content = 'Thought: Done.\nAction: final_answer\nAction Input: {"answer": "Oslo"}';
    expect(readTextReply(content, tags, 'r4', usage)).toMatchObject({ type: 'final_answer', answer: 'Oslo' });
  });

  it('refuses an Action of final_answer without a usable answer, with the same message as native mode', () => {
    const content = 'Thought: Done.\nAction: final_answer\nAction Input: {}';
    expect(readTextReply(content, tags, 'r6', usage)).toMatchObject({
      type: 'malformed',
      problem: 'final_answer needs {"answer": "..."}; got {}',
    });
  });

  it('uses the configured tags', () => {
    const custom: TextTags = { thought: 'Reasoning:', action: 'Tool:', observation: 'Result:' };
    const reply = readTextReply('Reasoning: Look.\nTool: search\nTool Input: {"q": "x"}', custom, 'r5', usage);
    expect(callsOf(reply)).toEqual([{ callId: 'r5-0', tool: 'search', argumentsText: '{"q": "x"}', args: { q: 'x' } }]);
  });
});

describe('readUsage', () => {
  const completion = (withUsage: boolean): ChatCompletion => ({
    id: 'c',
    object: 'chat.completion',
    created: 0,
    model: 'm',
    choices: [],
    ...(withUsage ? { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } } : {}),
  });

  it('takes the usage the endpoint reports', () => {
    expect(readUsage(completion(true).usage, 4000, 400)).toEqual({
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
    });
  });

  it.each([
    ['negative counts', { prompt_tokens: -500, completion_tokens: -1, total_tokens: -501 }],
    ['strings', { prompt_tokens: '11', completion_tokens: '7', total_tokens: '18' }],
    ['NaN and fractions', { prompt_tokens: Number.NaN, completion_tokens: 1.5, total_tokens: null }],
  ])('does not believe %s: each bad count is estimated, so the token budget cannot be bypassed', (_label, usage) => {
    const broken = { ...completion(false), usage } as unknown as ChatCompletion;
    expect(readUsage(broken.usage, 401, 40)).toEqual({ promptTokens: 101, completionTokens: 10, totalTokens: 111 });
  });

  it('keeps good counts beside a bad one, and a total below its parts becomes their sum', () => {
    const mixed = {
      ...completion(false),
      usage: { prompt_tokens: 11, completion_tokens: -3, total_tokens: 2 },
    } as unknown as ChatCompletion;
    expect(readUsage(mixed.usage, 401, 40)).toEqual({ promptTokens: 11, completionTokens: 10, totalTokens: 21 });
  });

  it('estimates usage from characters when the endpoint omits it', () => {
    expect(readUsage(completion(false).usage, 401, 40)).toEqual({
      promptTokens: 101,
      completionTokens: 10,
      totalTokens: 111,
    });
  });
});
