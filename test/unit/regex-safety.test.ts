import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src';
import { validateAgentConfig } from '../../src/shared/config';
import { regexRisk, schemaPatterns } from '../../src/shared/regex-safety';

describe('patterns the workflow refuses to run', () => {
  it.each(['^(a+)+$', '(x+x+)+y', '(a|a)*', '(a|aa)+', '((ab)*)+', '(\\d+)*$', '(a?){2,}', '^(?:[a-z]+\\s?)+$'])(
    'refuses %s (a repeated group that repeats or branches)',
    (pattern) => {
      expect(regexRisk(pattern)).toMatch(/exponential time/);
    },
  );

  it.each([
    '^[a-z]+$',
    '^\\d{3}-\\d{4}$',
    '^(ab)+$',
    '(?:foo|bar)',
    '[(+)]+',
    '\\(a+\\)+',
    '^(a){2}$',
    '^(?:yes|no)$',
    '[a-z]+(\\.[a-z]+)?',
  ])('runs %s', (pattern) => {
    expect(regexRisk(pattern)).toBeNull();
  });

  it('finds patterns anywhere in a JSON Schema, property patterns included', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'string', pattern: 'x' }, b: { items: { pattern: 'y' } } },
      patternProperties: { '^z': {} },
    };
    expect(schemaPatterns(schema).sort()).toEqual(['^z', 'x', 'y']);
  });

  it('an outputSchema with such a pattern is refused before the run starts, instead of hanging the workflow task', () => {
    const outputSchema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
      required: ['code'],
    };
    const validation = validateAgentConfig({ outputSchema });
    expect(validation).toEqual({
      ok: false,
      message:
        'Invalid agent config: outputSchema: pattern "^(a+)+$" repeats a group that itself repeats, which can take exponential time; rewrite it without a repeated group that repeats',
    });
  });

  it('a tool whose confirmation rule has such a pattern is refused where it is defined', () => {
    const define = () =>
      defineTool({
        name: 'run_sql',
        description: 'Runs SQL.',
        category: 'db',
        schema: z.object({ sql: z.string() }),
        confirm: { anyOf: [{ when: 'matches', arg: 'sql', pattern: '^(\\w+\\s?)+;$' }] },
        handler: () => 'ok',
      });
    expect(define).toThrow(
      'Tool "run_sql" has a confirmation pattern that repeats a group that itself repeats, which can take exponential time',
    );
  });
});
