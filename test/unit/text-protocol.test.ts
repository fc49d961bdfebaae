import { describe, it, expect } from 'vitest';
import { parseTextReply, textProtocolInstructions } from '../../src/shared/protocol';
import type { TextTags } from '../../src/shared/protocol';

const tags: TextTags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
const customTags: TextTags = { thought: 'Reasoning:', action: 'Tool:', observation: 'Result:' };

const lines = (...text: string[]): string => text.join('\n');

describe('parseTextReply', () => {
  it('reads a thought, an action and its JSON input', () => {
    const reply = lines(
      'Thought: I need the product of 17 and 23.',
      'Action: calculator',
      'Action Input: {"expression": "17 * 23"}',
    );
    expect(parseTextReply(reply, tags)).toEqual({
      thought: 'I need the product of 17 and 23.',
      action: { tool: 'calculator', argumentsText: '{"expression": "17 * 23"}', args: { expression: '17 * 23' } },
    });
  });

  it('reads JSON wrapped in a ```json code fence', () => {
    const reply = lines(
      'Thought: Search for it.',
      'Action: search',
      'Action Input:',
      '```json',
      '{"query": "capital of France", "limit": 3}',
      '```',
    );
    expect(parseTextReply(reply, tags).action?.args).toEqual({ query: 'capital of France', limit: 3 });
  });

  it('reads JSON wrapped in a bare code fence', () => {
    const reply = lines('Thought: Search.', 'Action: search', 'Action Input: ```', '{"query": "x"}', '```');
    expect(parseTextReply(reply, tags).action?.args).toEqual({ query: 'x' });
  });

  it('gives empty arguments when the Action Input line is missing', () => {
    const reply = lines('Thought: List the files first.', 'Action: list_files');
    const parsed = parseTextReply(reply, tags);
    expect(parsed.action).toEqual({ tool: 'list_files', argumentsText: '', args: {} });
    expect(parsed.malformed).toBeUndefined();
  });

  it('reports invalid JSON as a parse error the model can act on, keeping the raw text', () => {
    const reply = lines('Thought: Compute.', 'Action: calculator', 'Action Input: {expression: 2+2}');
    const { action } = parseTextReply(reply, tags);
    expect(action?.tool).toBe('calculator');
    expect(action?.argumentsText).toBe('{expression: 2+2}');
    expect(action?.args).toBeUndefined();
    expect(action?.parseError).toMatch(/^the arguments are not valid JSON \(.+\)$/);
  });

  it('strips quotes, backticks and emphasis around the tool name and ignores later lines of the action', () => {
    const reply = lines('Thought: Look it up.', 'Action: `search`', 'because it is quick', 'Action Input: {}');
    expect(parseTextReply(reply, tags).action?.tool).toBe('search');
  });

  it('reads a final answer', () => {
    const reply = lines('Thought: I now know the answer.', 'Final Answer: Paris is the capital of France.');
    expect(parseTextReply(reply, tags)).toEqual({
      thought: 'I now know the answer.',
      finalAnswer: 'Paris is the capital of France.',
    });
  });

  it('keeps a multi-line final answer', () => {
    const reply = lines('Thought: Done.', 'Final Answer: Two steps:', '1. mix', '2. bake');
    expect(parseTextReply(reply, tags).finalAnswer).toBe('Two steps:\n1. mix\n2. bake');
  });

  it('refuses a reply with both an action and a final answer', () => {
    const reply = lines('Thought: Hmm.', 'Action: search', 'Action Input: {}', 'Final Answer: 42');
    const parsed = parseTextReply(reply, tags);
    expect(parsed.action).toBeUndefined();
    expect(parsed.finalAnswer).toBeUndefined();
    expect(parsed.malformed).toContain('both an action and a final answer');
  });

  it('refuses a reply with neither, naming the tags the model must use', () => {
    const parsed = parseTextReply('The answer is probably 42.', tags);
    expect(parsed.action).toBeUndefined();
    expect(parsed.finalAnswer).toBeUndefined();
    expect(parsed.malformed).toContain('"Action:"');
    expect(parsed.malformed).toContain('"Action Input: <JSON>"');
    expect(parsed.malformed).toContain('"Final Answer:');
  });

  it('refuses an Action line that names no tool', () => {
    const parsed = parseTextReply(lines('Thought: Do it.', 'Action:', 'Action Input: {}'), tags);
    expect(parsed.action).toBeUndefined();
    expect(parsed.malformed).toContain('names no tool');
  });

  it('refuses an empty final answer', () => {
    const parsed = parseTextReply(lines('Thought: Finished.', 'Final Answer:   '), tags);
    expect(parsed.finalAnswer).toBeUndefined();
    expect(parsed.malformed).toContain('final answer is empty');
  });

  describe('hallucinated observations', () => {
    it('ignores an invented observation and the final answer that follows it', () => {
      const reply = lines(
        'Thought: I should search.',
        'Action: search',
        'Action Input: {"query": "capital of France"}',
        'Observation: Paris',
        'Thought: I now know.',
        'Final Answer: Paris',
      );
      const parsed = parseTextReply(reply, tags);
      expect(parsed.finalAnswer).toBeUndefined();
      expect(parsed.malformed).toBeUndefined();
      expect(parsed.thought).toBe('I should search.');
      expect(parsed.action).toEqual({
        tool: 'search',
        argumentsText: '{"query": "capital of France"}',
        args: { query: 'capital of France' },
      });
    });

    it('does not let the invented observation leak into the arguments', () => {
      const reply = lines('Thought: Go.', 'Action: search', 'Action Input: {"query": "x"}', 'Observation: {}');
      expect(parseTextReply(reply, tags).action?.argumentsText).toBe('{"query": "x"}');
    });
  });

  it('accepts tags in any case', () => {
    const reply = lines('THOUGHT: Compute it.', 'action: calculator', 'action input: {"expression": "1+1"}');
    expect(parseTextReply(reply, tags)).toEqual({
      thought: 'Compute it.',
      action: { tool: 'calculator', argumentsText: '{"expression": "1+1"}', args: { expression: '1+1' } },
    });
    expect(parseTextReply(lines('thought: ok then', 'final answer: 2'), tags).finalAnswer).toBe('2');
  });

  it('accepts **bold** tags', () => {
    const reply = lines(
      '**Thought:** I need the weather.',
      '**Action:** weather',
      '**Action Input:** {"city": "Oslo"}',
    );
    expect(parseTextReply(reply, tags)).toEqual({
      thought: 'I need the weather.',
      action: { tool: 'weather', argumentsText: '{"city": "Oslo"}', args: { city: 'Oslo' } },
    });
    expect(parseTextReply(lines('**Thought:** Done.', '**Final Answer:** Sunny'), tags).finalAnswer).toBe('Sunny');
  });

  // Many models write "**Thought**:" with the colon outside the emphasis.
  it('accepts bold tags with the colon outside the emphasis', () => {
    const reply = lines('**Thought**: I need the weather.', '**Action**: weather', '**Action Input**: {"city": "X"}');
    const parsed = parseTextReply(reply, tags);
    expect(parsed.malformed).toBeUndefined();
    expect(parsed.action?.tool).toBe('weather');
  });

  it('only takes tags at the start of a line', () => {
    const parsed = parseTextReply(lines('Thought: The word Action: here is prose.', 'Final Answer: ok'), tags);
    expect(parsed).toEqual({ thought: 'The word Action: here is prose.', finalAnswer: 'ok' });
  });

  it('keeps a multi-line thought', () => {
    const reply = lines(
      'Thought: I know the city.',
      'I still need its population.',
      '',
      'Search will give it.',
      'Action: search',
      'Action Input: {"query": "population of Lyon"}',
    );
    expect(parseTextReply(reply, tags).thought).toBe(
      'I know the city.\nI still need its population.\n\nSearch will give it.',
    );
  });

  it('uses text before any tag as the thought when there is no Thought tag', () => {
    const reply = lines('I should look this up first.', 'Action: search', 'Action Input: {"query": "x"}');
    const parsed = parseTextReply(reply, tags);
    expect(parsed.thought).toBe('I should look this up first.');
    expect(parsed.action?.tool).toBe('search');
  });

  it('prefers the Thought tag over text before it', () => {
    const parsed = parseTextReply(lines('Sure.', 'Thought: The real reasoning.', 'Final Answer: 1'), tags);
    expect(parsed.thought).toBe('The real reasoning.');
  });

  describe('custom tags', () => {
    it('reads an action with the custom tags and the derived input tag', () => {
      const reply = lines('Reasoning: Need a sum.', 'Tool: calculator', 'Tool Input: {"expression": "2+3"}');
      expect(parseTextReply(reply, customTags)).toEqual({
        thought: 'Need a sum.',
        action: { tool: 'calculator', argumentsText: '{"expression": "2+3"}', args: { expression: '2+3' } },
      });
    });

    it('drops everything after the custom observation tag', () => {
      const reply = lines('Reasoning: Go.', 'Tool: search', 'Tool Input: {}', 'Result: found', 'Final Answer: x');
      const parsed = parseTextReply(reply, customTags);
      expect(parsed.action?.tool).toBe('search');
      expect(parsed.finalAnswer).toBeUndefined();
    });

    it('does not treat the default tags as tags', () => {
      const parsed = parseTextReply(lines('Thought: a', 'Action: search', 'Action Input: {}'), customTags);
      expect(parsed.action).toBeUndefined();
      expect(parsed.malformed).toContain('"Tool:"');
      expect(parsed.malformed).toContain('"Tool Input: <JSON>"');
    });

    it('reads a final answer with the custom thought tag', () => {
      expect(parseTextReply(lines('Reasoning: done', 'Final Answer: 5'), customTags)).toEqual({
        thought: 'done',
        finalAnswer: '5',
      });
    });
  });
});

describe('textProtocolInstructions', () => {
  it('teaches the default tags and the final-answer tag', () => {
    const text = textProtocolInstructions(tags);
    for (const tag of ['Thought:', 'Action:', 'Action Input:', 'Observation:', 'Final Answer:']) {
      expect(text).toContain(tag);
    }
  });

  it('teaches custom tags instead of the defaults', () => {
    const text = textProtocolInstructions(customTags);
    for (const tag of ['Reasoning:', 'Tool:', 'Tool Input:', 'Result:', 'Final Answer:']) {
      expect(text).toContain(tag);
    }
    expect(text).not.toContain('Thought:');
    expect(text).not.toContain('Action:');
    expect(text).not.toContain('Observation:');
  });

  it('produces instructions the parser understands when the model follows them', () => {
    const example = lines(`${customTags.thought} why`, `${customTags.action} search`, 'Tool Input: {"q": 1}');
    expect(textProtocolInstructions(customTags)).toContain('Tool Input: <the arguments as one JSON object>');
    expect(parseTextReply(example, customTags).action?.args).toEqual({ q: 1 });
  });
});
