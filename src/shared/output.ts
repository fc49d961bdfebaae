import type { z } from 'zod';
import type { AgentConfig } from './config';
import { parseSignature, signatureOutputSchema } from './signature';
import { formatZodIssues } from './validation';

/** The JSON Schema a run's final answer must match: `outputSchema`, else the signature's outputs, else none. */
export function outputSchemaOf(
  config: Pick<AgentConfig, 'outputSchema' | 'signature'>,
): Record<string, unknown> | undefined {
  if (config.outputSchema) return config.outputSchema;
  if (!config.signature) return undefined;
  const signature = parseSignature(config.signature);
  return typeof signature === 'string' ? undefined : signatureOutputSchema(signature);
}

function jsonIn(text: string): unknown {
  const trimmed = text.trim();
  const fenced = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/.exec(trimmed)?.[1] ?? trimmed;
  try {
    return JSON.parse(fenced);
  } catch {
    const start = fenced.indexOf('{');
    const end = fenced.lastIndexOf('}');
    if (start < 0 || end <= start) throw new SyntaxError('no JSON object found');
    return JSON.parse(fenced.slice(start, end + 1));
  }
}

/** Checks a final answer against the output schema: the parsed value, or a message the model can act on. */
export function checkOutput(
  answer: string,
  validator: z.ZodType,
): { ok: true; value: unknown } | { ok: false; message: string } {
  let value: unknown;
  try {
    value = jsonIn(answer);
  } catch (error) {
    return {
      ok: false,
      message: `Your final answer must be one JSON object matching the output schema; it does not parse (${error instanceof Error ? error.message : String(error)}).`,
    };
  }
  const parsed = validator.safeParse(value);
  if (!parsed.success)
    return {
      ok: false,
      message: `Your final answer does not match the output schema: ${formatZodIssues(parsed.error.issues)}. Answer again.`,
    };
  return { ok: true, value: parsed.data };
}
