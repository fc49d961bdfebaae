import { describe, it, expect } from 'vitest';
import { agentConfigSchema } from '../../src/shared/config';
import { validateThought } from '../../src/workflow/thinking/thought';

const config = agentConfigSchema.parse({});

describe('validateThought', () => {
  it.each(['', '   ', '\n\t'])('asks for a thought when it is empty (%j)', (thought) => {
    expect(validateThought(thought, config, [])).toMatch(/^Your reply had no thought\. Before calling a tool, write/);
  });

  it.each([
    'I will use the calculator tool.',
    'Use calculator.',
    'Now run the read_file tool!',
    'Let me check.',
    "Let's use the search tool.",
    'Let me think about this',
    'Okay.',
    'Hmmm',
    'N/A',
    '...',
  ])('refuses the degenerate thought %j', (thought) => {
    expect(validateThought(thought, config, [])).toBe(
      `Your thought "${thought}" only names an action. ` +
        'Before calling a tool, write your reasoning: what you know, what is missing, and why this tool helps.',
    );
  });

  // The contraction, not just "I will": both only name an action.
  it.each(["I'll use the calculator tool.", "I'll call search."])(
    'refuses the contracted degenerate thought %j',
    (thought) => {
      expect(validateThought(thought, config, [])).toContain('only names an action');
    },
  );

  it('refuses a thought shorter than minThoughtLength', () => {
    expect(validateThought('Need 2+2 sum', config, [])).toMatch(
      /^Your thought "Need 2\+2 sum" is too short \(under 15 characters\)\./,
    );
  });

  it('accepts a thought exactly at minThoughtLength', () => {
    expect(validateThought('Need the 2+2 x.', config, [])).toBeNull();
  });

  it('honours a custom minThoughtLength', () => {
    const strict = agentConfigSchema.parse({ thoughts: { minLength: 40 } });
    expect(validateThought('I need the population of Lyon.', strict, [])).toContain('under 40 characters');
    expect(validateThought('Need 2+2 sum', agentConfigSchema.parse({ thoughts: { minLength: 5 } }), [])).toBeNull();
  });

  it('trims the thought before judging it', () => {
    expect(validateThought('   Need 2+2 sum   ', config, [])).toContain('"Need 2+2 sum"');
  });

  it.each([
    'I know the city is Lyon but not its population; the search tool can look it up.',
    'I will use the calculator tool to multiply 17 by 23, since mental arithmetic is error-prone.',
    'Let me check the weather in Paris because the user asked whether to bring an umbrella.',
  ])('accepts a thought that gives a reason: %j', (thought) => {
    expect(validateThought(thought, config, [])).toBeNull();
  });

  // The loop passes the names of the tools the reply calls; stripped of them, verbs and filler, nothing is left.
  it.each([
    ['Now I will use the calculator tool.', ['calculator']],
    ['Using the calculator.', ['calculator']],
    ['Calling the calculator tool now.', ['calculator']],
    ['OK, I will now execute the calculator function.', ['calculator']],
    ['Running read_file now.', ['read_file']],
    ['Reading the file with the read-file tool.', ['read_file']],
    ['I am going to invoke getWeather.', ['getWeather']],
    ["Let's try the web search tools again!", ['web_search']],
    ['Searching the web, then calling the calculator.', ['web_search', 'calculator']],
    ['Trying calculator and search.', ['calculator', 'search']],
  ])('refuses %j, which only restates the calls of %j', (thought, tools) => {
    expect(validateThought(thought, config, tools)).toBe(
      `Your thought "${thought}" only names an action. ` +
        'Before calling a tool, write your reasoning: what you know, what is missing, and why this tool helps.',
    );
  });

  it.each([
    ['The calculator gives exact results, so I will use it for 17 * 23.', ['calculator']],
    ['Using the calculator to multiply 17 by 23.', ['calculator']],
    ['I know the city is Lyon but not its population; the search tool can look it up.', ['search']],
    ['The port is probably in config.json, so I will read it with read_file.', ['read_file']],
    ['Searching the web for the 2024 Lyon census, since my data stops in 2021.', ['web_search']],
    ['I do not trust my arithmetic, calculator please.', ['calculator']],
  ])('accepts %j, which reasons about the calls of %j', (thought, tools) => {
    expect(validateThought(thought, config, tools)).toBeNull();
  });

  it("judges a thought by the reply's tool names: restating the call is no reason", () => {
    expect(validateThought('Calling the calculator tool now.', config, ['search'])).toBeNull();
    expect(validateThought('Calling the calculator tool now.', config, ['calculator'])).toContain(
      'only names an action',
    );
  });

  it('accepts anything when requireThought is off', () => {
    const lax = agentConfigSchema.parse({ thoughts: { require: false } });
    for (const thought of ['', 'Let me check.', 'I will use the calculator tool.', 'x']) {
      expect(validateThought(thought, lax, ['calculator'])).toBeNull();
    }
  });
});
