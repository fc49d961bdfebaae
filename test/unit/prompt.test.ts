import { describe, it, expect } from 'vitest';
import { agentConfigSchema, type AgentConfig } from '../../src/shared/config';
import type { ChatMessage } from '../../src/shared/protocol';
import type { ReActStep } from '../../src/shared/types';
import { renderScratchpad } from '../../src/shared/protocol';
import { buildMessages, forcedAnswerInstruction } from '../../src/workflow/thinking/prompt';

const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

function call(iteration: number, thought: string, tool: string, args: unknown, callId: string, observation: string) {
  const step: ReActStep = {
    iteration,
    thought,
    // The server's own ID is the one sent back to it.
    action: { type: 'tool_call', tool, args, callId: `c${iteration}-${callId}`, serverCallId: callId },
    observation,
    timestamp: '2024-01-01T00:00:00.000Z',
    tokenUsage: usage,
  };
  return step;
}

// Iteration 1 made two calls in one reply; iteration 2 made one.
const steps: ReActStep[] = [
  call(1, 'I need both populations.', 'search', { query: 'Lyon' }, 'call-a', '522,000'),
  call(1, 'I need both populations.', 'search', { query: 'Nice' }, 'call-b', '342,000'),
  call(2, 'Now subtract them.', 'calculator', { expression: '522000 - 342000' }, 'call-c', '180000'),
];

const config = (input: AgentConfig = {}) =>
  agentConfigSchema.parse({ systemPrompt: 'SYSTEM', ...input, thoughts: { prompt: 'THINK' } });

const query = 'How many more people live in Lyon than in Nice?';
const build = (input: AgentConfig, feedback: string[] = [], history = steps): ChatMessage[] =>
  buildMessages({ query, config: config(input), steps: history, feedback });

describe('buildMessages in native mode', () => {
  it('starts with the system prompt plus the thought template, then the task', () => {
    expect(build({}, [], []).slice(0, 2)).toEqual([
      { role: 'system', content: 'SYSTEM\n\nTHINK' },
      { role: 'user', content: query },
    ]);
    expect(build({}, [], [])).toHaveLength(2);
  });

  it('replays each iteration as one assistant message with its tool calls, then one tool message per call', () => {
    expect(build({}).slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'I need both populations.',
        toolCalls: [
          { id: 'call-a', name: 'search', argumentsText: '{"query":"Lyon"}' },
          { id: 'call-b', name: 'search', argumentsText: '{"query":"Nice"}' },
        ],
      },
      { role: 'tool', toolCallId: 'call-a', content: '522,000' },
      { role: 'tool', toolCallId: 'call-b', content: '342,000' },
      {
        role: 'assistant',
        content: 'Now subtract them.',
        toolCalls: [{ id: 'call-c', name: 'calculator', argumentsText: '{"expression":"522000 - 342000"}' }],
      },
      { role: 'tool', toolCallId: 'call-c', content: '180000' },
    ]);
  });

  it('answers every tool call id the assistant made', () => {
    const messages = build({});
    const called = messages.flatMap((message) =>
      message.role === 'assistant' ? (message.toolCalls ?? []).map((toolCall) => toolCall.id) : [],
    );
    const answered = messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []));
    expect(answered).toEqual(called);
  });

  it('replays string arguments as they were written', () => {
    const history = [call(1, 'Try raw input.', 'search', '{bad json', 'call-x', '[error] bad JSON')];
    const assistant = build({}, [], history)[2];
    expect(assistant).toMatchObject({ toolCalls: [{ id: 'call-x', argumentsText: '{bad json' }] });
  });

  it('keeps only the last iteration when the scratchpad is off', () => {
    const messages = build({ history: { scratchpad: false } });
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(messages[2]).toMatchObject({ content: 'Now subtract them.', toolCalls: [{ id: 'call-c' }] });
  });

  it('keeps every call of the last iteration when the scratchpad is off', () => {
    const messages = build({ history: { scratchpad: false } }, [], steps.slice(0, 2));
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
  });

  it('appends pending feedback as a final user message', () => {
    const messages = build({}, ['Your thought "ok" only names an action.', 'The arguments are not valid JSON.']);
    expect(messages).toHaveLength(2 + 5 + 1);
    expect(messages[messages.length - 1]).toEqual({
      role: 'user',
      content:
        'Your previous reply could not be used:\n' +
        '- Your thought "ok" only names an action.\n' +
        '- The arguments are not valid JSON.\n' +
        'Please try again.',
    });
  });

  it('adds no feedback message when there is none', () => {
    const last = build({}).at(-1);
    expect(last?.role).toBe('tool');
  });
});

describe('buildMessages in text mode', () => {
  it('replays each step as the reply the model wrote and the observation it was given', () => {
    expect(build({ modelSettings: { toolCalling: 'text' } }).slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Thought: I need both populations.\nAction: search\nAction Input: {"query":"Lyon"}',
      },
      { role: 'user', content: 'Observation: 522,000' },
      {
        role: 'assistant',
        content: 'Thought: I need both populations.\nAction: search\nAction Input: {"query":"Nice"}',
      },
      { role: 'user', content: 'Observation: 342,000' },
      {
        role: 'assistant',
        content: 'Thought: Now subtract them.\nAction: calculator\nAction Input: {"expression":"522000 - 342000"}',
      },
      { role: 'user', content: 'Observation: 180000' },
    ]);
  });

  it('uses the configured tags', () => {
    const messages = build(
      {
        modelSettings: { toolCalling: 'text', thoughtTag: 'Reasoning:', actionTag: 'Tool:', observationTag: 'Result:' },
      },
      [],
      steps.slice(2),
    );
    expect(messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Reasoning: Now subtract them.\nTool: calculator\nTool Input: {"expression":"522000 - 342000"}',
      },
      { role: 'user', content: 'Result: 180000' },
    ]);
  });

  it('sends no tool messages', () => {
    expect(build({ modelSettings: { toolCalling: 'text' } }).some((message) => message.role === 'tool')).toBe(false);
  });

  it('keeps only the last iteration when the scratchpad is off', () => {
    const contents = build({ modelSettings: { toolCalling: 'text' }, history: { scratchpad: false } })
      .slice(2)
      .map((m) => m.content);
    expect(contents).toEqual([
      'Thought: Now subtract them.\nAction: calculator\nAction Input: {"expression":"522000 - 342000"}',
      'Observation: 180000',
    ]);
  });
});

describe('renderScratchpad', () => {
  it('renders every step as Thought / Action / Action Input / Observation, separated by blank lines', () => {
    expect(renderScratchpad(steps.slice(1), config())).toBe(
      [
        'Thought: I need both populations.',
        'Action: search',
        'Action Input: {"query":"Nice"}',
        'Observation: 342,000',
        '',
        'Thought: Now subtract them.',
        'Action: calculator',
        'Action Input: {"expression":"522000 - 342000"}',
        'Observation: 180000',
      ].join('\n'),
    );
  });

  it('renders a final answer without an observation', () => {
    const answer: ReActStep = {
      iteration: 3,
      thought: 'Done.',
      action: { type: 'final_answer', answer: '180,000 more' },
      observation: null,
      timestamp: '2024-01-01T00:00:00.000Z',
      tokenUsage: usage,
    };
    expect(renderScratchpad([answer], config())).toBe('Thought: Done.\nFinal Answer: 180,000 more');
  });

  it('renders all steps even when the scratchpad is off for the model', () => {
    expect(renderScratchpad(steps, config({ history: { scratchpad: false } })).split('\n\n')).toHaveLength(3);
  });

  it('is empty before the first step', () => {
    expect(renderScratchpad([], config())).toBe('');
  });
});

describe('forcedAnswerInstruction', () => {
  it('says why the run stops and asks for a best-effort answer', () => {
    const text = forcedAnswerInstruction('reached the limit of 3 iterations');
    expect(text).toContain('The run must stop now because reached the limit of 3 iterations.');
    expect(text).toContain('No more tools can be used.');
  });
});
