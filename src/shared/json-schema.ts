import { z } from 'zod';
import { linearPattern, schemaPatterns } from './regex-safety';

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
    return `not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}
