import { z } from 'zod';
import { linearPattern, schemaPatterns } from './regex-safety';
import { errorMessage } from './errors';

/**
 * Builds the validator for a JSON Schema, or says why it is unusable; zod does this without generating code. Patterns
 * the worker's linear-time regex engine cannot run are refused: the validator runs on the model's answer and
 * arguments in the worker's activities.
 */
export function compileJsonSchema(schema: Record<string, unknown>): z.ZodType | string {
  for (const pattern of schemaPatterns(schema)) {
    const linear = linearPattern(pattern);
    if ('problem' in linear) return `pattern ${linear.problem}`;
  }
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    return `not a usable JSON Schema: ${errorMessage(error)}`;
  }
}

/**
 * The schema without the patterns the worker's linear-time engine cannot run, and those patterns. For a schema the
 * worker only checks on the way to a server that checks it again (an MCP tool's input), a pattern dropped costs less
 * than the tool: the server still refuses what does not match.
 */
export function withoutNonLinearPatterns(schema: unknown): { schema: unknown; dropped: string[] } {
  const dropped: string[] = [];
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'pattern' && typeof value === 'string' && 'problem' in linearPattern(value)) {
        dropped.push(value);
      } else if (key === 'patternProperties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const kept: Record<string, unknown> = {};
        for (const [name, inner] of Object.entries(value)) {
          if ('problem' in linearPattern(name)) dropped.push(name);
          else kept[name] = walk(inner);
        }
        out[key] = kept;
      } else {
        out[key] = walk(value);
      }
    }
    return out;
  };
  return { schema: walk(schema), dropped };
}
