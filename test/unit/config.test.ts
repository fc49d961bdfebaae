import { describe, it, expect } from 'vitest';
import {
  agentConfigSchema,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_THOUGHT_PROMPT,
  validateAgentConfig,
  type AgentConfig,
} from '../../src/shared/config';
import { withConfigDefaults } from '../../src/shared/config-defaults';

function invalid(input: unknown): string {
  const result = validateAgentConfig(input);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.message;
}

function valid(input: unknown): AgentConfig {
  const result = validateAgentConfig(input);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('agent config defaults', () => {
  it('fills every documented default for an empty config', () => {
    expect(valid({})).toEqual({
      maxIterations: 10,
      thoughtPrompt: DEFAULT_THOUGHT_PROMPT,
      requireThought: 'auto',
      minThoughtLength: 15,
      thoughtTag: 'Thought:',
      actionTag: 'Action:',
      observationTag: 'Observation:',
      enableScratchpad: true,
      successPhrases: [],
      failurePhrases: [],
      stallThreshold: 3,
      maxObservationTokens: 2000,
      maxToolCallsPerReply: 16,
      maxCallsPerTool: {},
      stopWhen: [],
      forceFinalAnswer: true,
      systemPrompt: DEFAULT_SYSTEM_PROMPT,
      toolCalling: 'native',
      stream: false,
      modelCalls: 'activity',
      runAhead: true,
      requireConfirmation: [],
      skipConfirmation: [],
      approvalTimeout: '24h',
      onApprovalTimeout: 'reject',
      approvers: {},
      onBudget: 'stop',
      allowClarification: true,
      maxStepsPerRun: 100,
      carrySteps: 10,
      critic: false,
      outputMode: 'simple',
      subagents: {},
    });
  });

  it('leaves optional limits unset so they do not apply', () => {
    const config = valid({});
    expect(config.tokenBudget).toBeUndefined();
    expect(config.timeoutSeconds).toBeUndefined();
    expect(config.tools).toBeUndefined();
    expect(config.model).toBeUndefined();
  });

  it('refuses waits longer than a timer can hold, which would fail the run at its first approval', () => {
    expect(validateAgentConfig({ approvalTimeout: '999999999d' })).toEqual({
      ok: false,
      message: 'Invalid agent config: approvalTimeout: at most a year (365d)',
    });
    expect(validateAgentConfig({ approvalTimeout: 400 * 24 * 3600 }).ok).toBe(false);
    expect(validateAgentConfig({ approvalTimeout: '365d' }).ok).toBe(true);
    // Nor observations larger than an activity result can carry.
    expect(validateAgentConfig({ maxObservationTokens: 1_000_000 })).toEqual({
      ok: false,
      message: 'Invalid agent config: maxObservationTokens: Too big: expected number to be <=100000',
    });
  });

  it('the workflow fills in the same defaults as the schema, for runs recorded before clients sent resolved configs', () => {
    expect(withConfigDefaults({})).toEqual(valid({}));
    const partial = { maxIterations: 3, tools: ['calculator'], critic: true, temperature: undefined };
    expect(withConfigDefaults(partial)).toEqual(valid(partial));
    // Each run gets its own defaults: a run that changes its lists cannot change the next run's.
    expect(withConfigDefaults({}).stopWhen).not.toBe(withConfigDefaults({}).stopWhen);
  });

  it('treats a missing config as the defaults', () => {
    expect(valid(undefined)).toEqual(valid({}));
    expect(valid(null)).toEqual(valid({}));
  });

  it('keeps the values a caller sets', () => {
    const config = valid({
      maxIterations: 3,
      toolCalling: 'text',
      thoughtTag: 'Reasoning:',
      stopWhen: [{ type: 'tool_called', tool: 'publish' }],
      maxCallsPerTool: { search: 2 },
      tokenBudget: 5000,
    });
    expect(config).toMatchObject({
      maxIterations: 3,
      toolCalling: 'text',
      thoughtTag: 'Reasoning:',
      actionTag: 'Action:',
      stopWhen: [{ type: 'tool_called', tool: 'publish' }],
      maxCallsPerTool: { search: 2 },
      tokenBudget: 5000,
      stallThreshold: 3,
    });
  });

  it('is the same parse the schema gives', () => {
    expect(agentConfigSchema.parse({ maxIterations: 4 })).toEqual(valid({ maxIterations: 4 }));
  });
});

describe('validateAgentConfig refusals', () => {
  it.each([
    [{ maxIterations: 'ten' }, 'maxIterations: Invalid input: expected number, received string'],
    [{ requireThought: 'yes' }, "requireThought: expected true, false or 'auto'"],
    [{ maxIterations: 0 }, 'maxIterations: Too small'],
    [{ maxIterations: 2.5 }, 'maxIterations: Invalid input: expected int'],
    [{ stallThreshold: 1 }, 'stallThreshold: Too small: expected number to be >=2'],
    [{ maxObservationTokens: 8 }, 'maxObservationTokens: Too small'],
    [{ tokenBudget: 0 }, 'tokenBudget: Too small'],
    [{ timeoutSeconds: -1 }, 'timeoutSeconds: Too small'],
    [{ minThoughtLength: -1 }, 'minThoughtLength: Too small'],
    [{ toolCalling: 'xml' }, 'toolCalling: Invalid option'],
    [{ thoughtTag: '' }, 'thoughtTag: Too small'],
    [{ maxCallsPerTool: { search: -1 } }, 'maxCallsPerTool.search: Too small'],
    [{ successPhrases: [''] }, 'successPhrases.0: Too small'],
  ])('refuses %j', (input, expected) => {
    expect(invalid(input)).toContain(expected);
  });

  it('names unknown fields so typos surface', () => {
    expect(invalid({ maxIteration: 5 })).toBe('Invalid agent config: unknown field: maxIteration');
    expect(invalid({ maxIteration: 5, temprature: 1 })).toBe(
      'Invalid agent config: unknown fields: maxIteration, temprature',
    );
  });

  it.each([
    [[{ type: 'bogus' }], 'stopWhen.0.type: Invalid discriminator value'],
    [[{ type: 'tool_called' }], 'stopWhen.0.tool: Invalid input: expected string'],
    [[{ type: 'thought_contains', text: '' }], 'stopWhen.0.text: Too small'],
    [[{ type: 'observation_contains', text: 'done', tool: '' }], 'stopWhen.0.tool: Too small'],
    [[{ type: 'tool_called', tool: 'x', when: 'always' }], 'unknown field in stopWhen.0: when'],
    [[{ type: 'tool_called', tool: 'x' }, 'done'], 'stopWhen.1: Invalid input: expected object'],
  ])('refuses the stop conditions %j', (stopWhen, expected) => {
    expect(invalid({ stopWhen })).toContain(expected);
  });

  it('lists every bad field on one line', () => {
    const message = invalid({
      maxIterations: 'ten',
      stallThreshold: 1,
      requireThought: 'yes',
      stopWhen: [{ type: 'bogus' }],
      colour: 'blue',
    });
    expect(message).not.toContain('\n');
    expect(message.startsWith('Invalid agent config: ')).toBe(true);
    for (const field of ['maxIterations:', 'stallThreshold:', 'requireThought:', 'stopWhen.0.type:', 'colour']) {
      expect(message).toContain(field);
    }
    expect(message.split('; ')).toHaveLength(5);
  });

  it('refuses a config that is not an object', () => {
    expect(invalid('maxIterations=3')).toBe('Invalid agent config: Invalid input: expected object, received string');
    expect(invalid([])).toContain('expected object');
  });
});

describe('model settings', () => {
  const all = {
    temperature: 0.2,
    maxTokens: 500,
    toolChoice: 'required',
    reasoningEffort: 'low',
    parallelToolCalls: false,
  };

  it('accepts all five, for the run and for a subagent, and leaves them unset by default', () => {
    expect(valid({ ...all, subagents: { helper: { description: 'helps', ...all } } })).toMatchObject({
      ...all,
      subagents: { helper: all },
    });
    expect(valid({ temperature: 0 }).temperature).toBe(0);
    const unset = valid({});
    for (const key of Object.keys(all)) expect(unset).not.toHaveProperty(key);
  });

  it.each([
    [{ temperature: 3 }, 'Invalid agent config: temperature: Too big: expected number to be <=2'],
    [{ temperature: -0.5 }, 'Invalid agent config: temperature: Too small: expected number to be >=0'],
    [
      { toolChoice: 'sometimes' },
      'Invalid agent config: toolChoice: Invalid option: expected one of "auto"|"required"|"none"',
    ],
    [{ maxTokens: 0 }, 'Invalid agent config: maxTokens: Too small: expected number to be >=1'],
    [{ maxTokens: 1.5 }, 'Invalid agent config: maxTokens: Invalid input: expected int, received number'],
    [
      { reasoningEffort: 'extreme' },
      'Invalid agent config: reasoningEffort: Invalid option: expected one of "minimal"|"low"|"medium"|"high"',
    ],
    [
      { parallelToolCalls: 'no' },
      'Invalid agent config: parallelToolCalls: Invalid input: expected boolean, received string',
    ],
    [
      { subagents: { helper: { description: 'helps', temperature: 3 } } },
      'Invalid agent config: subagents.helper.temperature: Too big: expected number to be <=2',
    ],
  ])('refuses %j with one clear line', (input, expected) => {
    expect(invalid(input)).toBe(expected);
  });

  it('refuses tool settings in text mode, which sends no tools, rather than ignoring them', () => {
    expect(invalid({ toolCalling: 'text', toolChoice: 'required' })).toBe(
      "Invalid agent config: toolChoice: needs toolCalling 'native' (text mode offers the model no tools to choose from)",
    );
    expect(
      invalid({ toolCalling: 'text', subagents: { helper: { description: 'helps', parallelToolCalls: false } } }),
    ).toBe(
      "Invalid agent config: subagents.helper.parallelToolCalls: needs toolCalling 'native' (text mode takes one action per reply)",
    );
    // The settings any request can carry are fine in text mode.
    expect(valid({ toolCalling: 'text', temperature: 1, maxTokens: 50, reasoningEffort: 'high' }).temperature).toBe(1);
  });
});
