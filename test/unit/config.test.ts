import { describe, it, expect } from 'vitest';
import { configOverrides, mergeConfig, validateAgentConfig } from '../../src/shared/agent-config';
import { DEFAULT_SYSTEM_PROMPT, DEFAULT_THOUGHT_PROMPT, type ResolvedConfig } from '../../src/shared/config';

function invalid(input: unknown): string {
  const result = validateAgentConfig(input);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  return result.message;
}

function valid(input: unknown): ResolvedConfig {
  const result = validateAgentConfig(input);
  if (!result.ok) throw new Error(result.message);
  return result.config;
}

describe('agent config defaults', () => {
  it('fills every documented default for an empty config', () => {
    expect(valid({})).toEqual({
      modelSettings: {
        toolCalling: 'native',
        stream: false,
        thoughtTag: 'Thought:',
        actionTag: 'Action:',
        observationTag: 'Observation:',
      },
      systemPrompt: DEFAULT_SYSTEM_PROMPT,
      thoughts: { prompt: DEFAULT_THOUGHT_PROMPT, require: 'auto', minLength: 15 },
      limits: {
        maxIterations: 10,
        maxToolCallsPerReply: 16,
        maxCallsPerTool: {},
        stallThreshold: 3,
        onReached: 'stop',
      },
      stopWhen: [],
      forceFinalAnswer: true,
      approvals: {
        require: [],
        skip: [],
        timeout: '24h',
        onTimeout: 'reject',
        approvers: {},
        requireSigned: false,
        clarification: true,
      },
      history: { scratchpad: true, maxObservationTokens: 2000, maxStepsPerRun: 100, carrySteps: 10 },
      conversation: {},
      critic: false,
      output: { mode: 'simple' },
      subagents: {},
    });
  });

  it('leaves optional limits unset so they do not apply', () => {
    const config = valid({});
    expect(config.limits.tokenBudget).toBeUndefined();
    expect(config.limits.timeoutSeconds).toBeUndefined();
    expect(config.tools).toBeUndefined();
    expect(config.model).toBeUndefined();
  });

  it('refuses waits longer than a timer can hold, which would fail the run at its first approval', () => {
    expect(validateAgentConfig({ approvals: { timeout: '999999999d' } })).toEqual({
      ok: false,
      message: 'Invalid agent config: approvals.timeout: at most a year (365d)',
    });
    expect(validateAgentConfig({ approvals: { timeout: 400 * 24 * 3600 } }).ok).toBe(false);
    expect(validateAgentConfig({ approvals: { timeout: '365d' } }).ok).toBe(true);
    // Nor observations larger than an activity result can carry.
    expect(validateAgentConfig({ history: { maxObservationTokens: 1_000_000 } })).toEqual({
      ok: false,
      message: 'Invalid agent config: history.maxObservationTokens: Too big: expected number to be <=100000',
    });
  });

  it('reads a resolved config as itself, so continue-as-new and subagents can send it back', () => {
    const config = valid({ limits: { maxIterations: 3 }, tools: ['calculator'], critic: true });
    expect(valid(config)).toEqual(config);
  });

  it('treats a missing config as the defaults', () => {
    expect(valid(undefined)).toEqual(valid({}));
    expect(valid(null)).toEqual(valid({}));
  });

  it('keeps the values a caller sets', () => {
    const config = valid({
      modelSettings: { toolCalling: 'text', thoughtTag: 'Reasoning:' },
      limits: { maxIterations: 3, maxCallsPerTool: { search: 2 }, tokenBudget: 5000 },
      stopWhen: [{ type: 'tool_called', tool: 'publish' }],
    });
    expect(config).toMatchObject({
      limits: { maxIterations: 3, maxCallsPerTool: { search: 2 }, tokenBudget: 5000, stallThreshold: 3 },
      modelSettings: { toolCalling: 'text', thoughtTag: 'Reasoning:', actionTag: 'Action:' },
      stopWhen: [{ type: 'tool_called', tool: 'publish' }],
    });
  });
});

describe('the grouped config', () => {
  it('resolves each group under the names people write: nothing is renamed on the way to the loop', () => {
    const written = {
      model: 'gpt-test',
      modelSettings: { temperature: 0.5, toolCalling: 'text', stream: true },
      thoughts: { prompt: 'THINK', require: false, minLength: 3 },
      limits: { maxIterations: 4, tokenBudget: 900, timeoutSeconds: 60, stallThreshold: 5, onReached: 'ask' },
      approvals: {
        require: ['delete_file'],
        skip: ['read_file'],
        timeout: '1h',
        onTimeout: 'end',
        approvers: { delete_file: ['ops'] },
        clarification: false,
      },
      history: { scratchpad: false, maxObservationTokens: 500, summaryEvery: 5, maxStepsPerRun: 20, carrySteps: 4 },
      conversation: { idleTimeout: '10m' },
      output: { mode: 'structured', schema: { type: 'object' } },
    };
    expect(valid(written)).toMatchObject(written);
  });

  it('keeps stop conditions as written, an outcome included', () => {
    const stopWhen = [
      { type: 'thought_contains', text: 'task complete', outcome: 'success' },
      { type: 'thought_contains', text: 'hand over' },
      { type: 'tool_called', tool: 'publish' },
    ];
    expect(valid({ stopWhen }).stopWhen).toEqual(stopWhen);
  });

  it('keeps a subagent as written', () => {
    const helper = {
      description: 'helps',
      model: 'small',
      modelSettings: { temperature: 0.1 },
      limits: { maxIterations: 3, timeoutSeconds: 30 },
    };
    expect(valid({ subagents: { helper } }).subagents).toEqual({ helper });
  });

  it("lays a fork's partial override over a config field by field: a given group adds no defaults", () => {
    const parent = valid({ limits: { maxIterations: 5, tokenBudget: 900 }, approvals: { require: ['x'] } });
    const checked = configOverrides({ limits: { maxIterations: 30 }, model: 'other' });
    if (!checked.ok) throw new Error(checked.message);
    const merged = mergeConfig(parent, checked.overrides);
    expect(merged.limits).toEqual({ ...parent.limits, maxIterations: 30 });
    expect(merged.approvals).toEqual(parent.approvals);
    expect(merged.model).toBe('other');
    expect(mergeConfig(parent, {})).toEqual(parent);
  });

  it('refuses the old flat fields, naming where each went, so a flat config is not silently ignored', () => {
    expect(invalid({ maxIterations: 5 })).toBe(
      'Invalid agent config: unknown field: maxIterations (`maxIterations` is now `limits.maxIterations`)',
    );
    expect(invalid({ costBudget: 1, colour: 'blue' })).toBe(
      'Invalid agent config: unknown fields: costBudget, colour (`costBudget` is now `limits.cost`)',
    );
    expect(invalid({ successPhrases: ['done'] })).toBe(
      "Invalid agent config: unknown field: successPhrases (`successPhrases` is now `stopWhen: [{ type: 'thought_contains', text, outcome: 'success' }]`)",
    );
    // Worker tuning is the worker's: a run cannot ask for it.
    expect(invalid({ modelCalls: 'local', runAhead: false })).toBe(
      "Invalid agent config: unknown fields: modelCalls, runAhead (`modelCalls` is now the worker's `modelCalls` option, or WORKER_MODEL_CALLS; `runAhead` is now the worker's `runAhead` option, or WORKER_RUN_AHEAD)",
    );
    expect(invalid({ subagents: { helper: { description: 'd', maxIterations: 3 } } })).toBe(
      'Invalid agent config: unknown field in subagents.helper: maxIterations (`maxIterations` is now `limits.maxIterations`)',
    );
  });
});

describe('validateAgentConfig refusals', () => {
  it.each([
    [{ limits: { maxIterations: 'ten' } }, 'limits.maxIterations: Invalid input: expected number, received string'],
    [{ thoughts: { require: 'yes' } }, "thoughts.require: expected true, false or 'auto'"],
    [{ limits: { maxIterations: 0 } }, 'limits.maxIterations: Too small'],
    [{ limits: { maxIterations: 2.5 } }, 'limits.maxIterations: Invalid input: expected int'],
    [{ limits: { stallThreshold: 1 } }, 'limits.stallThreshold: Too small: expected number to be >=2'],
    [{ history: { maxObservationTokens: 8 } }, 'history.maxObservationTokens: Too small'],
    [{ limits: { tokenBudget: 0 } }, 'limits.tokenBudget: Too small'],
    [{ limits: { timeoutSeconds: -1 } }, 'limits.timeoutSeconds: Too small'],
    [{ thoughts: { minLength: -1 } }, 'thoughts.minLength: Too small'],
    [{ modelSettings: { toolCalling: 'xml' } }, 'modelSettings.toolCalling: Invalid option'],
    [{ modelSettings: { thoughtTag: '' } }, 'modelSettings.thoughtTag: Too small'],
    [{ limits: { maxCallsPerTool: { search: -1 } } }, 'limits.maxCallsPerTool.search: Too small'],
    [{ limits: 3 }, 'limits: Invalid input: expected object, received number'],
  ])('refuses %j', (input, expected) => {
    expect(invalid(input)).toContain(expected);
  });

  it('names unknown fields so typos surface, with the group they are in', () => {
    expect(invalid({ limits: { maxIteration: 5 } })).toBe(
      'Invalid agent config: unknown field in limits: maxIteration',
    );
    expect(invalid({ limits: { maxIteration: 5 }, modelSettings: { temprature: 1 } })).toBe(
      'Invalid agent config: unknown field in modelSettings: temprature; unknown field in limits: maxIteration',
    );
    expect(invalid({ colour: 'blue', flavour: 'mint' })).toBe('Invalid agent config: unknown fields: colour, flavour');
  });

  it.each([
    [[{ type: 'bogus' }], 'stopWhen.0.type: Invalid discriminator value'],
    [[{ type: 'tool_called' }], 'stopWhen.0.tool: Invalid input: expected string'],
    [[{ type: 'thought_contains', text: '' }], 'stopWhen.0.text: Too small'],
    [[{ type: 'observation_contains', text: 'done', tool: '' }], 'stopWhen.0.tool: Too small'],
    [[{ type: 'tool_called', tool: 'x', when: 'always' }], 'unknown field in stopWhen.0: when'],
    [[{ type: 'tool_called', tool: 'x' }, 'done'], 'stopWhen.1: Invalid input: expected object'],
    [[{ type: 'thought_contains', text: 'x', outcome: 'maybe' }], 'stopWhen.0.outcome: Invalid option'],
    [[{ type: 'tool_called', tool: 'x', outcome: 'success' }], 'unknown field in stopWhen.0: outcome'],
  ])('refuses the stop conditions %j', (stopWhen, expected) => {
    expect(invalid({ stopWhen })).toContain(expected);
  });

  it('lists every bad field on one line', () => {
    const message = invalid({
      limits: { maxIterations: 'ten', stallThreshold: 1 },
      thoughts: { require: 'yes' },
      stopWhen: [{ type: 'bogus' }],
      colour: 'blue',
    });
    expect(message).not.toContain('\n');
    expect(message.startsWith('Invalid agent config: ')).toBe(true);
    for (const field of [
      'limits.maxIterations:',
      'limits.stallThreshold:',
      'thoughts.require:',
      'stopWhen.0.type:',
      'colour',
    ]) {
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
    expect(
      valid({ modelSettings: all, subagents: { helper: { description: 'helps', modelSettings: all } } }),
    ).toMatchObject({
      modelSettings: all,
      subagents: { helper: { modelSettings: all } },
    });
    expect(valid({ modelSettings: { temperature: 0 } }).modelSettings.temperature).toBe(0);
    const unset = valid({}).modelSettings;
    for (const key of Object.keys(all)) expect(unset).not.toHaveProperty(key);
  });

  it.each([
    [
      { modelSettings: { temperature: 3 } },
      'Invalid agent config: modelSettings.temperature: Too big: expected number to be <=2',
    ],
    [
      { modelSettings: { temperature: -0.5 } },
      'Invalid agent config: modelSettings.temperature: Too small: expected number to be >=0',
    ],
    [
      { modelSettings: { toolChoice: 'sometimes' } },
      'Invalid agent config: modelSettings.toolChoice: Invalid option: expected one of "auto"|"required"|"none"',
    ],
    [
      { modelSettings: { maxTokens: 0 } },
      'Invalid agent config: modelSettings.maxTokens: Too small: expected number to be >=1',
    ],
    [
      { modelSettings: { maxTokens: 1.5 } },
      'Invalid agent config: modelSettings.maxTokens: Invalid input: expected int, received number',
    ],
    [
      { modelSettings: { reasoningEffort: 'extreme' } },
      'Invalid agent config: modelSettings.reasoningEffort: Invalid option: expected one of "minimal"|"low"|"medium"|"high"',
    ],
    [
      { modelSettings: { parallelToolCalls: 'no' } },
      'Invalid agent config: modelSettings.parallelToolCalls: Invalid input: expected boolean, received string',
    ],
    [
      { subagents: { helper: { description: 'helps', modelSettings: { temperature: 3 } } } },
      'Invalid agent config: subagents.helper.modelSettings.temperature: Too big: expected number to be <=2',
    ],
    [
      { subagents: { helper: { description: 'helps', temperature: 3 } } },
      'Invalid agent config: unknown field in subagents.helper: temperature (`temperature` is now `modelSettings.temperature`)',
    ],
  ])('refuses %j with one clear line', (input, expected) => {
    expect(invalid(input)).toBe(expected);
  });

  it('refuses tool settings in text mode, which sends no tools, rather than ignoring them', () => {
    expect(invalid({ modelSettings: { toolCalling: 'text', toolChoice: 'required' } })).toBe(
      "Invalid agent config: modelSettings.toolChoice: needs modelSettings.toolCalling 'native' (text mode offers the model no tools to choose from)",
    );
    expect(
      invalid({
        modelSettings: { toolCalling: 'text' },
        subagents: { helper: { description: 'helps', modelSettings: { parallelToolCalls: false } } },
      }),
    ).toBe(
      "Invalid agent config: subagents.helper.modelSettings.parallelToolCalls: needs modelSettings.toolCalling 'native' (text mode takes one action per reply)",
    );
    // The settings any request can carry are fine in text mode.
    expect(
      valid({ modelSettings: { toolCalling: 'text', temperature: 1, maxTokens: 50, reasoningEffort: 'high' } })
        .modelSettings.temperature,
    ).toBe(1);
  });
});
