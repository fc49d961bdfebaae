import { z } from 'zod';

/** Builds the validator for a JSON Schema, or says why it is unusable; zod does this without generating code. */
export function compileJsonSchema(schema: Record<string, unknown>): z.ZodType | string {
  try {
    return z.fromJSONSchema(schema);
  } catch (error) {
    return `not a usable JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
}
