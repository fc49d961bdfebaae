import { describe, it, expect } from 'vitest';
import { parseTextReply, readTextReply, textProtocolInstructions } from '../../src/shared/protocol';
import type { TextTags } from '../../src/shared/protocol';

const tags: TextTags = { thought: 'Thought:', action: 'Action:', observation: 'Observation:' };
const customTags: TextTags = { thought: 'Reasoning:', action: 'Tool:', observation: 'Result:' };

const lines = (...text: string[]): string => text.join('\n');
const usage = { promptTokens: 1, completionTokens: 1, totalTokens: 2 };

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

describe('parseTextReply: replies as small local models write them', () => {
  const calculation = { tool: 'calculator', args: { expression: '2+2' } };

  describe('prose after the JSON arguments', () => {
    it('ignores prose after the arguments on the same line', () => {
      const reply = lines('Thought: Add.', 'Action: calculator', `Action Input: {"expression": "2+2"} I'll wait.`);
      const { action } = parseTextReply(reply, tags);
      expect(action).toMatchObject(calculation);
      expect(action?.parseError).toBeUndefined();
      // The text stays as the model wrote it.
      expect(action?.argumentsText).toBe(`{"expression": "2+2"} I'll wait.`);
    });

    it('ignores prose on the next line', () => {
      const reply = lines('Thought: Add.', 'Action: calculator', 'Action Input: {"expression": "2+2"}', 'Waiting.');
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });

    it('ignores prose after fenced arguments', () => {
      const reply = lines(
        'Thought: Add.',
        'Action: calculator',
        'Action Input:',
        '```json',
        '{"expression": "2+2"}',
        '```',
        'Done.',
      );
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });

    it('says where cut-off JSON ends, so the model can resend it whole', () => {
      const reply = lines('Thought: Add.', 'Action: calculator', 'Action Input: {"expression": "2+');
      expect(parseTextReply(reply, tags).action?.parseError).toBe(
        'the arguments are not valid JSON (the text ends before the JSON does (expected the closing " of a string))',
      );
    });
  });

  describe('the whole reply in a code fence', () => {
    it('reads an action in a bare fence', () => {
      const reply = lines('```', 'Thought: Add.', 'Action: calculator', 'Action Input: {"expression": "2+2"}', '```');
      expect(parseTextReply(reply, tags)).toEqual({
        thought: 'Add.',
        action: { ...calculation, argumentsText: '{"expression": "2+2"}' },
      });
    });

    it('reads a final answer in a ```text fence without the closing fence in the answer', () => {
      const reply = lines('```text', 'Thought: Known.', 'Final Answer: Paris', '```');
      expect(parseTextReply(reply, tags)).toEqual({ thought: 'Known.', finalAnswer: 'Paris' });
    });

    it('keeps a fence around the arguments inside the outer fence', () => {
      const reply = lines(
        '```',
        'Thought: Add.',
        'Action: calculator',
        'Action Input:',
        '```json',
        '{"expression": "2+2"}',
        '```',
        '```',
      );
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });

    it('reads a reply cut off before its closing fence', () => {
      const reply = lines('```', 'Thought: Add.', 'Action: calculator', 'Action Input: {"expression": "2+2"}');
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });
  });

  describe('numbered tags', () => {
    it('reads Thought 1 / Action 1 / Action Input 1 and drops the invented Observation 1', () => {
      const reply = lines(
        'Thought 1: I need the sum.',
        'Action 1: calculator',
        'Action Input 1: {"expression": "2+2"}',
        'Observation 1: 4',
        'Thought 2: I know it.',
        'Final Answer 2: 4',
      );
      expect(parseTextReply(reply, tags)).toEqual({
        thought: 'I need the sum.',
        action: { ...calculation, argumentsText: '{"expression": "2+2"}' },
      });
    });

    it('reads a numbered final answer', () => {
      expect(parseTextReply(lines('Thought 3: Done.', 'Final Answer 3: 4'), tags)).toEqual({
        thought: 'Done.',
        finalAnswer: '4',
      });
    });

    it('takes a number without a colon as the start of the answer, not a step number', () => {
      expect(parseTextReply(lines('Thought: Done.', 'Final Answer 42'), tags).finalAnswer).toBe('42');
    });
  });

  describe('tags without a colon', () => {
    it('reads Thought, Action and Action Input followed by a space', () => {
      const reply = lines('Thought I need to add.', 'Action calculator', 'Action Input {"expression": "2+2"}');
      expect(parseTextReply(reply, tags)).toEqual({
        thought: 'I need to add.',
        action: { ...calculation, argumentsText: '{"expression": "2+2"}' },
      });
    });

    it('reads each tag alone on its line with the content below it', () => {
      const reply = lines('Thought', 'I need to add.', 'Action', 'calculator', 'Action Input', '{"expression": "2+2"}');
      expect(parseTextReply(reply, tags)).toMatchObject({ thought: 'I need to add.', action: calculation });
    });

    it('reads a mix: the Thought without a colon, the rest with', () => {
      const reply = lines('Thought I need to add.', 'Action: calculator', 'Action Input: {"expression": "2+2"}');
      expect(parseTextReply(reply, tags)).toMatchObject({ thought: 'I need to add.', action: calculation });
    });

    it('does not take a sentence that starts with "Action" for an action', () => {
      const parsed = parseTextReply(lines('Thought: Let me plan.', 'Action items are due on Monday.'), tags);
      expect(parsed.action).toBeUndefined();
      expect(parsed.malformed).toContain('no "Action:" and no "Final Answer:" line');
    });

    it('prefers the colon form: a line starting with "Action" in the thought is prose', () => {
      const reply = lines(
        'Thought: Hmm.',
        'Action search would be quickest.',
        'Action: calculator',
        'Action Input: {}',
      );
      expect(parseTextReply(reply, tags).action?.tool).toBe('calculator');
    });

    it('keeps lines of a final answer that start with "Action" or "Thought" in the answer', () => {
      const reply = lines('Thought: Done.', 'Final Answer: The plan:', 'Action items first.', 'Thought leaders later.');
      expect(parseTextReply(reply, tags)).toEqual({
        thought: 'Done.',
        finalAnswer: 'The plan:\nAction items first.\nThought leaders later.',
      });
    });
  });

  describe('other spellings of the final answer', () => {
    it.each([
      ['Answer: Paris', 'Answer:'],
      ['Final answer Paris', 'Final answer without a colon'],
      ['**Final Answer:** Paris', 'bold'],
      ['Final Answer - Paris', 'a dash'],
      ['Final Answer — Paris', 'an em dash'],
      ['### Final Answer\nParis', 'a heading'],
      ['## Answer\nParis', 'an Answer heading'],
    ])('reads %j (%s)', (answerLine) => {
      expect(parseTextReply(lines('Thought: Known.', answerLine), tags)).toEqual({
        thought: 'Known.',
        finalAnswer: 'Paris',
      });
    });

    it('prefers "Final Answer:" to an "Answer:" line before it', () => {
      const reply = lines('Thought: Check.', 'Answer: maybe 3', 'Final Answer: 4');
      expect(parseTextReply(reply, tags).finalAnswer).toBe('4');
    });

    it('runs the action when the model adds an "Answer:" guess after it', () => {
      const reply = lines('Thought: Add.', 'Action: calculator', 'Action Input: {"expression": "2+2"}', 'Answer: 4');
      const parsed = parseTextReply(reply, tags);
      expect(parsed.finalAnswer).toBeUndefined();
      expect(parsed.action).toMatchObject(calculation);
    });

    it('does not take "Answer" followed by a space for a tag', () => {
      const parsed = parseTextReply(lines('Thought: Hmm.', 'Answer the user kindly.'), tags);
      expect(parsed.finalAnswer).toBeUndefined();
      expect(parsed.malformed).toContain('no "Action:" and no "Final Answer:" line');
    });
  });

  describe('markdown headings', () => {
    it('reads ### headings with the content on the following lines', () => {
      const reply = lines(
        '### Thought',
        'I need to add.',
        '',
        '### Action',
        'calculator',
        '',
        '### Action Input',
        '```json',
        '{"expression": "2+2"}',
        '```',
      );
      expect(parseTextReply(reply, tags)).toMatchObject({ thought: 'I need to add.', action: calculation });
    });

    it('reads ## headings with a colon and the content on the same line', () => {
      const reply = lines('## Thought: Add.', '## Action: calculator', '## Action Input: {"expression": "2+2"}');
      expect(parseTextReply(reply, tags)).toMatchObject({ thought: 'Add.', action: calculation });
    });

    it('reads bold tags alone on their lines', () => {
      const reply = lines(
        '**Thought**',
        'Add.',
        '**Action**',
        '`calculator`',
        '**Action Input**',
        '{"expression": "2+2"}',
      );
      expect(parseTextReply(reply, tags)).toMatchObject({ thought: 'Add.', action: calculation });
    });
  });

  // ReAct-paper style. The parser knows no tool schemas, so bracket text that is not JSON is passed on as one plain
  // string: the built-in actions map it to their one field, other tools' schemas decide in the worker.
  describe('arguments on the action line', () => {
    it('passes tool[text] on as the plain string, with no parse error', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: calculator[2+2]'), tags);
      expect(action).toEqual({ tool: 'calculator', argumentsText: '2+2', args: '2+2' });
    });

    it('passes tool(text) on as the plain string', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: calculator(sqrt(16) * 2)'), tags);
      expect(action).toEqual({ tool: 'calculator', argumentsText: 'sqrt(16) * 2', args: 'sqrt(16) * 2' });
    });

    it('reads JSON inside the brackets', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: calculator[{"expression": "2+2"}]'), tags);
      expect(action).toMatchObject(calculation);
    });

    it('reads a quoted string inside the brackets without its quotes', () => {
      const { action } = parseTextReply(lines('Thought: Look.', 'Action: search["capital of France"]'), tags);
      expect(action?.args).toBe('capital of France');
    });

    it('reads keyword arguments in a call', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: calculator(expression="2+2")'), tags);
      expect(action).toMatchObject(calculation);
      expect(action?.argumentsText).toBe('expression="2+2"');
    });

    it('reads a JSON object after the tool name', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: `calculator` {"expression": "2+2"}'), tags);
      expect(action).toMatchObject(calculation);
    });

    it('prefers an explicit Action Input to text after the tool name', () => {
      const reply = lines('Thought: Add.', 'Action: calculator (the exact one)', 'Action Input: {"expression": "2+2"}');
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });

    it('gives empty arguments for empty brackets', () => {
      expect(parseTextReply(lines('Thought: List.', 'Action: list_files[]'), tags).action).toEqual({
        tool: 'list_files',
        argumentsText: '',
        args: {},
      });
    });

    it('reports broken JSON inside the brackets as a parse error', () => {
      const { action } = parseTextReply(lines('Thought: Add.', 'Action: calculator[{"expression": 2+2}]'), tags);
      expect(action?.args).toBeUndefined();
      expect(action?.parseError).toMatch(/^the arguments are not valid JSON \(expected "," or "}" .+\)$/);
    });

    it('makes final_answer[text] the final answer and request_clarification[text] a question', () => {
      const answer = readTextReply(lines('Thought: Known.', 'Action: final_answer[Paris]'), tags, 'r', usage);
      expect(answer).toMatchObject({ type: 'final_answer', answer: 'Paris' });
      const question = lines('Thought: Unclear.', 'Action: request_clarification(Which city?)');
      expect(readTextReply(question, tags, 'r', usage)).toMatchObject({
        type: 'clarification',
        question: 'Which city?',
      });
    });
  });

  describe('Python dict arguments', () => {
    it('reads single quotes and True/False/None', () => {
      const reply = lines(
        'Thought: Add.',
        'Action: calculator',
        `Action Input: {'expression': '2+2', 'exact': True, 'round': False, 'x': None,}`,
      );
      expect(parseTextReply(reply, tags).action?.args).toEqual({
        expression: '2+2',
        exact: true,
        round: false,
        x: null,
      });
    });

    it('keeps apostrophes inside strings', () => {
      const reply = lines(
        'Thought: Look.',
        'Action: search',
        `Action Input: {'query': 'what\\'s "new"', "note": "it's"}`,
      );
      expect(parseTextReply(reply, tags).action?.args).toEqual({ query: `what's "new"`, note: "it's" });
    });
  });

  describe('layout of the action', () => {
    it('reads Action Input after blank lines', () => {
      const reply = lines('Thought: Add.', 'Action: calculator', '', '', 'Action Input: {"expression": "2+2"}');
      expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
    });

    it.each(['`calculator`', '"calculator"', "'calculator'", '**calculator**'])(
      'strips %s to the tool name',
      (name) => {
        const reply = lines('Thought: Add.', `Action: ${name}`, 'Action Input: {"expression": "2+2"}');
        expect(parseTextReply(reply, tags).action).toMatchObject(calculation);
      },
    );

    it.each(['None', 'none', 'null', 'N/A'])('gives empty arguments for "Action Input: %s"', (none) => {
      const reply = lines('Thought: List.', 'Action: list_files', `Action Input: ${none}`);
      expect(parseTextReply(reply, tags).action).toEqual({ tool: 'list_files', argumentsText: none, args: {} });
    });

    it('passes plain-text arguments on as a string, as tool[text] does', () => {
      const reply = lines('Thought: Look.', 'Action: search', 'Action Input: capital of France');
      expect(parseTextReply(reply, tags).action).toEqual({
        tool: 'search',
        argumentsText: 'capital of France',
        args: 'capital of France',
      });
    });

    it('makes plain text for final_answer the answer', () => {
      const reply = lines('Thought: Known.', 'Action: final_answer', 'Action Input: Paris');
      expect(readTextReply(reply, tags, 'r', usage)).toMatchObject({ type: 'final_answer', answer: 'Paris' });
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
