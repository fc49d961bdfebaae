import { z } from 'zod';
import type { AnyToolDefinition } from './define-tool';

/**
 * Each zod schema's JSON Schema, generated once per worker: zod schemas are immutable, and generating them on every
 * model call took about 0.15 ms of the worker's CPU per call in the bench (P2, all local).
 */
const generated = new WeakMap<AnyToolDefinition['schema'], Record<string, unknown>>();

/**
 * JSON Schema of a tool's arguments, generated from its zod schema by zod itself (input side: defaults optional).
 * Shared between calls: callers must not change it.
 */
export function toolParametersSchema(tool: AnyToolDefinition): Record<string, unknown> {
  if (tool.parameters) return tool.parameters;
  const cached = generated.get(tool.schema);
  if (cached) return cached;
  const schema = z.toJSONSchema(tool.schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete schema.$schema;
  generated.set(tool.schema, schema);
  return schema;
}

/** The tool catalog as text, for models that learn their tools from the prompt (text mode). */
export function renderToolCatalog(tools: readonly AnyToolDefinition[]): string {
  if (tools.length === 0) return 'You have no tools: answer from what you know.';
  const entries = tools.map((tool) => {
    const lines = [
      `- ${tool.name}: ${tool.description}`,
      `  arguments (JSON Schema): ${JSON.stringify(toolParametersSchema(tool))}`,
    ];
    for (const example of tool.examples ?? []) lines.push(`  example arguments: ${JSON.stringify(example)}`);
    return lines.join('\n');
  });
  return `You can use these tools:\n${entries.join('\n')}`;
}
