import { describe, it, expect } from 'vitest';
import { z } from 'zod';
import { defineTool, type AnyToolDefinition } from '../../src/worker/tools/define-tool';
import { DuplicateToolError, ToolRegistry } from '../../src/worker/tools/registry';
import { mcpToolName, unambiguous } from '../../src/worker/mcp/tool-source';
import { createListTools } from '../../src/worker/activities/tools';

function tool(name: string, category: string): AnyToolDefinition {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    category,
    schema: z.object({}),
    handler: () => name,
  });
}

const add = tool('add', 'math');
const upper = tool('upper', 'text');
const multiply = tool('multiply', 'math');

describe('ToolRegistry', () => {
  it('takes a tool without a category, listed as custom (issue 34)', async () => {
    const weather = defineTool({
      name: 'weather',
      description: 'The weather in a city.',
      schema: z.object({ city: z.string() }),
      handler: ({ city }) => `Sunny in ${city}`,
    });
    const registry = new ToolRegistry([weather, add]);
    expect(registry.list('custom')).toEqual([weather]);
    const catalog = await createListTools(registry)(['weather']);
    expect(catalog.tools[0]).toMatchObject({ name: 'weather', category: 'custom' });
  });

  it('finds registered tools by name', () => {
    const registry = new ToolRegistry([add, upper]);
    expect(registry.get('add')).toBe(add);
    expect(registry.has('upper')).toBe(true);
    expect(registry.get('divide')).toBeUndefined();
    expect(registry.has('divide')).toBe(false);
  });

  it('matches names exactly', () => {
    const registry = new ToolRegistry([add]);
    expect(registry.has('Add')).toBe(false);
    expect(registry.has(' add')).toBe(false);
  });

  it('registers tools one by one, chaining', () => {
    const registry = new ToolRegistry().register(add).register(upper);
    expect(registry.list()).toEqual([add, upper]);
  });

  it('lists tools in registration order, or those of one category', () => {
    const registry = new ToolRegistry([add, upper, multiply]);
    expect(registry.list().map((entry) => entry.name)).toEqual(['add', 'upper', 'multiply']);
    expect(registry.list('math').map((entry) => entry.name)).toEqual(['add', 'multiply']);
    expect(registry.list('text')).toEqual([upper]);
    expect(registry.list('files')).toEqual([]);
  });

  it('is empty by default', () => {
    expect(new ToolRegistry().list()).toEqual([]);
  });

  it('resolves every tool when no names are given', () => {
    expect(new ToolRegistry([add, upper]).resolve()).toEqual({ tools: [add, upper], unknown: [] });
  });

  it('resolves requested names in the order asked and reports the unknown ones', () => {
    const registry = new ToolRegistry([add, upper, multiply]);
    expect(registry.resolve(['multiply', 'web_search', 'add', 'Upper'])).toEqual({
      tools: [multiply, add],
      unknown: ['web_search', 'Upper'],
    });
  });

  it('resolves an empty request to no tools', () => {
    expect(new ToolRegistry([add]).resolve([])).toEqual({ tools: [], unknown: [] });
  });

  it('refuses a second tool with a taken name and keeps the first', () => {
    const registry = new ToolRegistry([add]);
    const impostor = tool('add', 'other');
    expect(() => registry.register(impostor)).toThrow(DuplicateToolError);
    expect(() => registry.register(impostor)).toThrow('A tool named "add" is already registered');
    expect(registry.get('add')).toBe(add);
    expect(registry.list()).toHaveLength(1);
  });

  it('refuses duplicates passed to the constructor', () => {
    expect(() => new ToolRegistry([add, upper, tool('upper', 'text')])).toThrow(DuplicateToolError);
  });

  it('gives the duplicate error a stable name callers can branch on', () => {
    let caught: unknown;
    try {
      new ToolRegistry([add, add]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(Error);
    expect((caught as Error).name).toBe('DuplicateToolError');
  });
});

describe('defineTool', () => {
  const definition = (name: string, description = 'Does a thing.') => ({
    name,
    description,
    category: 'misc',
    schema: z.object({ value: z.number() }),
    handler: ({ value }: { value: number }) => value * 2,
  });

  it('returns the definition it was given', () => {
    const input = definition('double');
    expect(defineTool(input)).toBe(input);
  });

  it.each(['a', 'read_file', 'web-search', 'Tool2', `t${'x'.repeat(63)}`])('accepts the name %j', (name) => {
    expect(defineTool(definition(name)).name).toBe(name);
  });

  it.each(['', '2fast', '_private', 'has space', 'dotted.name', 'émoji', `t${'x'.repeat(64)}`])(
    'refuses the name %j',
    (name) => {
      expect(() => defineTool(definition(name))).toThrow(TypeError);
      expect(() => defineTool(definition(name))).toThrow(`Tool name "${name}" is invalid`);
    },
  );

  it.each(['final_answer', 'request_clarification', 'delegate'])('refuses the built-in action name %j', (name) => {
    expect(() => defineTool(definition(name))).toThrow(
      `Tool name "${name}" is reserved: the agent's built-in ${name} action takes those calls`,
    );
  });

  it.each(['', '   ', '\n'])('refuses the empty description %j', (description) => {
    expect(() => defineTool(definition('double', description))).toThrow(
      'Tool "double" needs a description: models choose tools by it',
    );
  });
});

describe('a registry given plain objects (T6: they skip defineTool)', () => {
  const plain = { name: 'lookup', description: 'Looks up a record.', handler: () => 'found' };

  it.each([
    [{}, 'Tool name missing (got undefined) is invalid'],
    [null, 'A tool is an object (defineTool({ name, description, schema, handler })), got null'],
    [{ ...plain, parameters: { type: 'object' } }, 'Tool "lookup" needs a zod `schema`'],
    [{ ...plain, schema: z.object({}), handler: 'found' }, 'Tool "lookup" needs a `handler` function'],
    [{ ...plain, name: 'delegate', schema: z.object({}) }, 'Tool name "delegate" is reserved'],
    [
      { ...plain, schema: { safeParse: () => ({ success: true }) } },
      'Tool "lookup" has a schema that gives no JSON Schema',
    ],
  ])('refuses %j when it is registered, not when a run uses it', (definition, problem) => {
    expect(() => new ToolRegistry([definition as AnyToolDefinition])).toThrow(problem);
  });

  it('takes a plain object with a zod schema and a handler', () => {
    expect(new ToolRegistry([{ ...plain, schema: z.object({}) }]).has('lookup')).toBe(true);
  });
});

describe('tools that share a name (N4)', () => {
  const named = (name: string, category: string, confirm: 'always' | 'never') =>
    defineTool({ name, description: name, category, schema: z.object({}), confirm, handler: () => category });

  it('a registry lists and runs the same tool for a name its sources share', () => {
    const first = named('evil__wipe_all', 'mcp:evil', 'always');
    const second = named('evil__wipe_all', 'mcp:evil', 'never');
    const registry = new ToolRegistry().attach({ tools: () => [first, second], refresh: () => Promise.resolve() });
    expect(registry.list()).toEqual([first]);
    expect(registry.get('evil__wipe_all')).toBe(first);
    expect(registry.resolve(['evil__wipe_all']).tools).toEqual([first]);
  });

  it('an MCP source leaves out every tool whose name another shares once made valid', () => {
    // `wipe_all` (asks first) and `wipe.all` (read-only) both become evil__wipe_all.
    const guarded = named(mcpToolName('evil', 'wipe_all'), 'mcp:evil', 'always');
    const loose = named(mcpToolName('evil', 'wipe.all'), 'mcp:evil', 'never');
    const other = named(mcpToolName('evil', 'count'), 'mcp:evil', 'never');
    expect(guarded.name).toBe(loose.name);
    expect(unambiguous([guarded, loose, other])).toEqual([other]);
  });
});
