import { describe, expect, it } from 'vitest';
import type { ResolvedModelInput } from '../../src/worker/activities/llm';
import { buildModelRequest } from '../../src/worker/activities/llm';
import { calculatorTool } from '../../src/worker/tools/builtin';

const base: ResolvedModelInput = {
  messages: [
    { role: 'system', content: 'SYSTEM' },
    { role: 'user', content: 'What is 6*7?' },
  ],
  mode: 'native',
  tools: ['calculator'],
  tags: { thought: 'Thought:', action: 'Action:', observation: 'Observation:' },
  label: 'think · step 1',
};
const settings = {
  temperature: 0.3,
  toolChoice: 'required',
  reasoningEffort: 'low',
  parallelToolCalls: false,
} as const;
const request = (input: Partial<ResolvedModelInput>) => buildModelRequest({ ...base, ...input }, 'm', [calculatorTool]);
const SETTING_FIELDS = ['temperature', 'max_tokens', 'tool_choice', 'reasoning_effort', 'parallel_tool_calls'];

describe('buildModelRequest with model settings', () => {
  it('sends every setting under its API name when tools are offered', () => {
    expect(request({ settings, maxTokens: 400 })).toMatchObject({
      model: 'm',
      temperature: 0.3,
      max_tokens: 400,
      tool_choice: 'required',
      reasoning_effort: 'low',
      parallel_tool_calls: false,
    });
  });

  it('leaves out every setting that is not set, so endpoints that do not know one never see it', () => {
    const plain = request({});
    for (const field of SETTING_FIELDS) expect(plain).not.toHaveProperty(field);
    expect(request({ settings: { temperature: 0 } })).toMatchObject({ temperature: 0 });
    expect(request({ settings: { temperature: 0 } })).not.toHaveProperty('tool_choice');
  });

  it('sends tool_choice and parallel_tool_calls only with tools: OpenAI refuses them in a tool-less request', () => {
    // A forced final answer offers nothing; the sampling settings still apply to it.
    const answerNow = request({ settings, maxTokens: 100, tools: [], allowClarification: false });
    expect(answerNow).not.toHaveProperty('tools');
    expect(answerNow).not.toHaveProperty('tool_choice');
    expect(answerNow).not.toHaveProperty('parallel_tool_calls');
    expect(answerNow).toMatchObject({ temperature: 0.3, max_tokens: 100, reasoning_effort: 'low' });
  });

  it('in text mode sends the sampling settings with the stop sequence, and no tool fields', () => {
    const text = request({ mode: 'text', settings, maxTokens: 200 });
    expect(text).toMatchObject({
      stop: ['\nObservation:'],
      temperature: 0.3,
      max_tokens: 200,
      reasoning_effort: 'low',
    });
    expect(text).not.toHaveProperty('tool_choice');
    expect(text).not.toHaveProperty('parallel_tool_calls');
  });

  it("toolChoice 'none' is sent as is, with the tools, so the model sees them but may call none (built-ins too)", () => {
    const none = request({ settings: { toolChoice: 'none' } });
    expect(none.tool_choice).toBe('none');
    expect(none.tools?.map((tool) => (tool.type === 'function' ? tool.function.name : tool.type))).toEqual([
      'calculator',
      'final_answer',
    ]);
  });
});
