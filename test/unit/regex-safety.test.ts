import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src';
import { validateAgentConfig } from '../../src/shared/agent-config';
import { linearPattern, regexRisk, schemaPatterns } from '../../src/shared/regex-safety';
import type { AnyToolDefinition } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { parseMcpServers } from '../../src/worker/mcp/config';
import { useLinearTimeRegexFallback } from '../../src/worker/regex-engine';
import { withoutNonLinearPatterns } from '../../src/shared/json-schema';

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

  it('an output.schema with such a pattern is refused before the run starts, instead of hanging the workflow task', () => {
    const outputSchema = {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^(a+)+$' } },
      required: ['code'],
    };
    const validation = validateAgentConfig({ output: { schema: outputSchema } });
    expect(validation).toEqual({
      ok: false,
      message:
        'Invalid agent config: output.schema: pattern "^(a+)+$" repeats a group that itself repeats, which can take exponential time; rewrite it without a repeated group that repeats',
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
      'Tool "run_sql" has a confirmation pattern that cannot be used: "^(\\w+\\s?)+;$" repeats a group that itself repeats',
    );
  });
});

describe('patterns in the form the linear-time engine runs (N2/N6)', () => {
  it.each([
    ['(', 'is not a valid regular expression'],
    ['(a)\\1', 'uses a backreference'],
    ['(?<n>a)\\k<n>', 'uses a backreference'],
    ['(?=a)b', 'uses a lookaround'],
    ['(?<!a)b', 'uses a lookaround'],
  ])('refuses %s: %s', (pattern, problem) => {
    expect(linearPattern(pattern)).toEqual({ problem: expect.stringContaining(problem) as string });
  });

  it('refuses the u flag and non-ASCII letters under i, which the linear engine cannot run', () => {
    expect(linearPattern('a', 'u')).toEqual({ problem: expect.stringContaining('flag u') as string });
    expect(linearPattern('café', 'i')).toEqual({ problem: expect.stringContaining('non-ASCII letters') as string });
  });

  it('spells out i for ASCII letters, classes and ranges, and leaves escapes and group names alone', () => {
    expect(linearPattern('^\\s*(drop|delete)', 'i')).toEqual({
      pattern: '^\\s*([dD][rR][oO][pP]|[dD][eE][lL][eE][tT][eE])',
      flags: '',
    });
    expect(linearPattern('(?<Key>[a-c_0-9]+)\\W', 'gi')).toEqual({ pattern: '(?<Key>[a-c_0-9A-C]+)\\W', flags: 'g' });
    const folded = linearPattern('^ab[x-z]$', 'i') as { pattern: string; flags: string };
    for (const text of ['abx', 'ABZ', 'aBy']) expect(new RegExp(folded.pattern, folded.flags).test(text)).toBe(true);
    expect(new RegExp(folded.pattern).test('abw')).toBe(false);
  });

  it('reads [] and [^] as JavaScript does, so a lookahead behind them is seen (review of N6)', () => {
    // Refused (its nested repeat is seen now); before, everything after `[^]` was read as the class's inside.
    expect(linearPattern('[^](?=(a+)+$)]')).toEqual({ problem: expect.stringContaining('repeats a group') as string });
    expect(linearPattern('[]x(?=y)')).toEqual({ problem: expect.stringContaining('lookaround') as string });
  });

  it('asks V8 itself on a worker: counts above 16 and the d flag are refused', () => {
    useLinearTimeRegexFallback(); // what a worker does at start: gives this process the linear engine's flag
    expect(linearPattern('^\\w{1,64}$')).toEqual({ problem: expect.stringContaining('count above 16') as string });
    expect(linearPattern('a{0,17}b')).toEqual({ problem: expect.stringContaining('count above 16') as string });
    expect(linearPattern('^a*a*$', 'd')).toEqual({ problem: expect.stringContaining('flag d') as string });
    expect(linearPattern('^[a-z]{2,16}$')).toEqual({ pattern: '^[a-z]{2,16}$', flags: '' });
  });

  it('refuses i where spelling it out would change what matches', () => {
    for (const pattern of ['[\\x41-Z]', '[a-\\x7a]', '\\xZZ', '\\u{3}x']) {
      expect(linearPattern(pattern, 'i')).toEqual({ problem: expect.stringMatching(/with flag i has/) as string });
    }
    const folded = linearPattern('[^]a]', 'i') as { pattern: string; flags: string };
    for (const text of ['xa]', 'xA]']) {
      expect(new RegExp(folded.pattern, folded.flags).test(text)).toBe(new RegExp('[^]a]', 'i').test(text));
    }
  });

  it("an MCP tool's schema keeps its tool: patterns the engine cannot run are left to the server", () => {
    const { schema, dropped } = withoutNonLinearPatterns({
      type: 'object',
      properties: { a: { type: 'string', pattern: '(?=x)y' }, b: { type: 'string', pattern: '^[a-z]+$' } },
      patternProperties: { '^(a+)+$': {}, '^z': { type: 'number' } },
    });
    expect(dropped).toEqual(['(?=x)y', '^(a+)+$']);
    expect(schema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string', pattern: '^[a-z]+$' } },
      patternProperties: { '^z': { type: 'number' } },
    });
  });

  it("keeps a polynomial pattern, which the worker's fallback runs in linear time", () => {
    expect(linearPattern('^a*a*a*$')).toEqual({ pattern: '^a*a*a*$', flags: '' });
  });

  it('a plain-object tool with an invalid pattern is refused by the registry, not left to fail every workflow task', () => {
    const tool = {
      name: 'poly',
      description: 'x',
      category: 'x',
      schema: z.object({ code: z.string() }),
      confirm: { when: 'matches', arg: 'code', pattern: '(' },
      handler: () => 'ok',
    } as AnyToolDefinition;
    expect(() => new ToolRegistry([tool])).toThrow('Tool "poly" has a confirmation pattern that cannot be used');
  });

  it("an MCP server's confirmation rules get the same checks (the report's rule-1 and rule-2)", () => {
    const config = (pattern: string) => ({
      evil: { command: 'node', tools: { poly: { confirm: { when: 'matches', arg: 'code', pattern } } } },
    });
    expect(() => parseMcpServers(config('('))).toThrow(/evil\.tools\.poly\.confirm.*not a valid regular expression/);
    expect(() => parseMcpServers(config('^(a+)+$'))).toThrow(/exponential time/);
    expect(() => parseMcpServers(config('^a*a*$'))).not.toThrow();
  });
});
