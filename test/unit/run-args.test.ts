import { describe, expect, it } from 'vitest';
import { parseRunArgs, UsageError } from '../../src/cli/args';

describe('run flags for model settings', () => {
  it('--temperature and --max-tokens set the modelSettings fields of the same names', () => {
    expect(parseRunArgs(['--temperature', '0.5', '--max-tokens', '200', 'q']).config).toMatchObject({
      modelSettings: { temperature: 0.5, maxTokens: 200 },
    });
    expect(parseRunArgs(['q']).config.modelSettings?.temperature).toBeUndefined();
  });

  it.each([
    [['--temperature', 'hot', 'q'], '--temperature expects a number, got "hot"'],
    [['--temperature', '', 'q'], '--temperature expects a number, got ""'],
    [['--max-tokens', '1.5', 'q'], '--max-tokens expects a whole number, got "1.5"'],
  ])('%j is a usage error naming the flag', (argv, message) => {
    expect(() => parseRunArgs(argv)).toThrow(new UsageError(message));
  });
});
