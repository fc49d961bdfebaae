import { describe, it, expect } from 'vitest';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { readNativeReply, readTextReply, readUsage } from '../../src/worker/activities/model-reply';
import type { ModelToolCall, TextTags } from '../../src/shared/protocol/model-io';

const usage = { promptTokens: 120, completionTokens: 30, totalTokens: 150 };
const tags: TextTags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
const toolCall = (id: string, name: string, argumentsText: string): ModelToolCall => ({ id, name, argumentsText });

describe('readNativeReply', () => {
  it('takes text without tool calls as the final answer', () => {
    expect(readNativeReply('  Paris is the capital.  ', [], usage)).toEqual({
      thought: 'Paris is the capital.',
      toolCalls: [],
      finalAnswer: 'Paris is the capital.',
      malformed: null,
      clarification: null,
      confidence: null,
      usage,
      assistantMessage: { role: 'assistant', content: '  Paris is the capital.  ' },
    });
  });

  it.each(['', '  \n '])('refuses an empty reply (%j) with a message the model can act on', (content) => {
    const reply = readNativeReply(content, [], usage);
    expect(reply.finalAnswer).toBeNull();
    expect(reply.toolCalls).toEqual([]);
    expect(reply.malformed).toBe('Your reply was empty. Call a tool or give the final answer.');
  });

  it('parses every tool call and keeps the text as the thought', () => {
    const calls = [
      toolCall('call-1', 'search', '{"query": "Lyon"}'),
      toolCall('call-2', 'calculator', '{"expression": "1+1"}'),
    ];
    const reply = readNativeReply('I need the population first.', calls, usage);
    expect(reply.thought).toBe('I need the population first.');
    expect(reply.finalAnswer).toBeNull();
    expect(reply.malformed).toBeNull();
    expect(reply.toolCalls).toEqual([
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
    expect(reply.toolCalls[0]?.args).toEqual({});
    expect(reply.toolCalls[0]?.parseError).toBeUndefined();
  });

  it('reports bad JSON arguments as a parse error instead of failing the reply', () => {
    const reply = readNativeReply('Searching.', [toolCall('c', 'search', '{"query": ')], usage);
    expect(reply.malformed).toBeNull();
    expect(reply.toolCalls).toHaveLength(1);
    const [call] = reply.toolCalls;
    expect(call?.tool).toBe('search');
    expect(call?.argumentsText).toBe('{"query": ');
    expect(call?.args).toBeUndefined();
    expect(call?.parseError).toMatch(/^the arguments are not valid JSON \(.+\)$/);
  });

  describe('the final_answer tool', () => {
    const finalCall = (argumentsText: string) =>
      readNativeReply('', [toolCall('f', 'final_answer', argumentsText)], usage);

    it('takes its answer as the final answer', () => {
      const reply = finalCall('{"answer": "42"}');
      expect(reply.finalAnswer).toBe('42');
      expect(reply.toolCalls).toEqual([]);
      expect(reply.malformed).toBeNull();
    });

    it('renders a non-string answer as JSON', () => {
      expect(finalCall('{"answer": {"city": "Paris", "rank": 1}}').finalAnswer).toBe('{"city":"Paris","rank":1}');
      expect(finalCall('{"answer": 42}').finalAnswer).toBe('42');
      expect(finalCall('{"answer": false}').finalAnswer).toBe('false');
    });

    it.each([
      ['{}', 'final_answer needs {"answer": "..."}; got {}'],
      ['{"answer": null}', 'final_answer needs {"answer": "..."}; got {"answer": null}'],
      ['{"text": "42"}', 'final_answer needs {"answer": "..."}; got {"text": "42"}'],
      ['', 'final_answer needs {"answer": "..."}; got nothing'],
      ['{"answer": ', 'final_answer needs {"answer": "..."}; got {"answer": '],
    ])('refuses %j without an answer', (argumentsText, message) => {
      const reply = finalCall(argumentsText);
      expect(reply.finalAnswer).toBeNull();
      expect(reply.toolCalls).toEqual([]);
      expect(reply.malformed).toBe(message);
    });

    // Text mode refuses an empty final answer too ("Your final answer is empty").
    it.each(['{"answer": ""}', '{"answer": "   "}'])('refuses the blank answer %j', (argumentsText) => {
      const reply = finalCall(argumentsText);
      expect(reply.finalAnswer).toBeNull();
      expect(reply.malformed).not.toBeNull();
    });

    it('wins over other calls in the same reply', () => {
      const calls = [toolCall('a', 'search', '{"query": "x"}'), toolCall('b', 'final_answer', '{"answer": "done"}')];
      const reply = readNativeReply('Enough information now.', calls, usage);
      expect(reply.finalAnswer).toBe('done');
      expect(reply.toolCalls).toEqual([]);
    });
  });
});

describe('readTextReply', () => {
  it('turns the action into one tool call whose id derives from the response id', () => {
    const content = 'Thought: I need the weather.\nAction: weather\nAction Input: {"city": "Oslo"}';
    expect(readTextReply(content, tags, 'chatcmpl-9', usage)).toEqual({
      thought: 'I need the weather.',
      toolCalls: [
        { callId: 'chatcmpl-9-0', tool: 'weather', argumentsText: '{"city": "Oslo"}', args: { city: 'Oslo' } },
      ],
      finalAnswer: null,
      malformed: null,
      clarification: null,
      confidence: null,
      usage,
      assistantMessage: { role: 'assistant', content },
    });
  });

  it('keeps a parse error on the call', () => {
    const reply = readTextReply('Thought: Go.\nAction: search\nAction Input: {oops}', tags, 'r1', usage);
    expect(reply.toolCalls[0]?.callId).toBe('r1-0');
    expect(reply.toolCalls[0]?.parseError).toContain('not valid JSON');
  });

  it('reads a final answer', () => {
    const reply = readTextReply('Thought: I know it.\nFinal Answer: Oslo is cold.', tags, 'r2', usage);
    expect(reply).toMatchObject({ thought: 'I know it.', finalAnswer: 'Oslo is cold.', malformed: null });
    expect(reply.toolCalls).toEqual([]);
  });

  it('passes on why a reply could not be understood', () => {
    const reply = readTextReply('Just some musing.', tags, 'r3', usage);
    expect(reply.finalAnswer).toBeNull();
    expect(reply.toolCalls).toEqual([]);
    expect(reply.malformed).toContain('no "Action:" and no "Final Answer:" line');
  });

  it('treats an Action of final_answer with an answer as the final answer', () => {
    const content = 'Thought: Done.\nAction: final_answer\nAction Input: {"answer": "Oslo"}';
    expect(readTextReply(content, tags, 'r4', usage)).toMatchObject({ finalAnswer: 'Oslo', toolCalls: [] });
  });

  it('refuses an Action of final_answer without a usable answer, with the same message as native mode', () => {
    const content = 'Thought: Done.\nAction: final_answer\nAction Input: {}';
    expect(readTextReply(content, tags, 'r6', usage)).toMatchObject({
      finalAnswer: null,
      toolCalls: [],
      malformed: 'final_answer needs {"answer": "..."}; got {}',
    });
  });

  it('uses the configured tags', () => {
    const custom: TextTags = { thought: 'Reasoning:', action: 'Tool:', observation: 'Result:' };
    const reply = readTextReply('Reasoning: Look.\nTool: search\nTool Input: {"q": "x"}', custom, 'r5', usage);
    expect(reply.toolCalls).toEqual([
      { callId: 'r5-0', tool: 'search', argumentsText: '{"q": "x"}', args: { q: 'x' } },
    ]);
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
    expect(readUsage(completion(true), 4000, 400)).toEqual({ promptTokens: 11, completionTokens: 7, totalTokens: 18 });
  });

  it('estimates usage from characters when the endpoint omits it', () => {
    expect(readUsage(completion(false), 401, 40)).toEqual({
      promptTokens: 101,
      completionTokens: 10,
      totalTokens: 111,
    });
  });
});
