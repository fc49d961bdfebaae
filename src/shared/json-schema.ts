import { z } from 'zod';
import { regexRisk, schemaPatterns } from './regex-safety';

/**
 * Builds the validator for a JSON Schema, or says why it is unusable; zod does this without generating code. Patterns
 * that could backtrack catastrophically are refused: the validator runs on the model's answer inside the workflow.
 */
export function compileJsonSchema(schema: Record<string, unknown>): z.ZodType | string {
  for (const pattern of schemaPatterns(schema)) {
    const risk = regexRisk(pattern);
    if (risk !== null) return `pattern ${risk}; rewrite it without a repeated group that repeats`;
  }
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    return `not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}
