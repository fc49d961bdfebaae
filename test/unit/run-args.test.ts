import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseRunArgs, UsageError } from '../../src/cli/args';
import { validateAgentConfig } from '../../src/shared/agent-config';

describe('run flags for model settings', () => {
  it('--temperature and --max-tokens set the modelSettings fields of the same names', () => {
    expect(parseRunArgs(['--temperature', '0.5', '--max-tokens', '200', 'q']).config).toMatchObject({
      modelSettings: { temperature: 0.5, maxTokens: 200 },
    });
    expect(parseRunArgs(['q']).config.modelSettings?.temperature).toBeUndefined();
  });

  it('--cost sets limits.cost in USD, any amount', () => {
    expect(parseRunArgs(['--cost', '0.25', 'q']).config.limits).toMatchObject({ cost: 0.25 });
    expect(() => parseRunArgs(['--cost', '$1', 'q'])).toThrow(new UsageError('--cost expects a number, got "$1"'));
  });

  it.each([
    [['--temperature', 'hot', 'q'], '--temperature expects a number, got "hot"'],
    [['--temperature', '', 'q'], '--temperature expects a number, got ""'],
    [['--max-tokens', '1.5', 'q'], '--max-tokens expects a whole number, got "1.5"'],
  ])('%j is a usage error naming the flag', (argv, message) => {
    expect(() => parseRunArgs(argv)).toThrow(new UsageError(message));
  });
});

describe('flags over a --config file', () => {
  const configFile = (config: unknown): string => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'run-args-')), 'config.json');
    writeFileSync(file, JSON.stringify(config));
    return file;
  };

  it('a flag replaces one field of its group, and phrases join the stopWhen list as outcomes', () => {
    const file = configFile({
      limits: { maxIterations: 3, tokenBudget: 900 },
      stopWhen: [{ type: 'tool_called', tool: 'finish' }],
    });
    const { config } = parseRunArgs(['--config', file, '--max-iterations', '7', '--success-phrase', 'DONE', 'q']);
    expect(config.limits).toEqual({ maxIterations: 7, tokenBudget: 900 });
    expect(config.stopWhen).toEqual([
      { type: 'tool_called', tool: 'finish' },
      { type: 'thought_contains', text: 'DONE', outcome: 'success' },
    ]);
  });

  it('what the file wrote in the wrong shape is left for the config check to refuse, not replaced', () => {
    const file = configFile({ limits: 5, stopWhen: 'DONE' });
    const { config } = parseRunArgs(['--config', file, '--max-iterations', '7', '--success-phrase', 'DONE', 'q']);
    expect(config).toMatchObject({ limits: 5, stopWhen: 'DONE' });
    const checked = validateAgentConfig(config);
    expect(checked.ok).toBe(false);
    expect(checked.ok ? '' : checked.message).toMatch(/limits: .*stopWhen: |stopWhen: .*limits: /);
  });
});
