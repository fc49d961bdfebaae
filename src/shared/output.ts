import type { ResolvedConfig } from './config';
import type { OutputCheck } from './protocol';
import { parseSignature, signatureOutputSchema } from './signature';
import { errorMessage } from './errors';

/** The JSON Schema a run's final answer must match: `output.schema`, else the signature's outputs, else none. */
export function outputSchemaOf(config: Pick<ResolvedConfig, 'output'>): Record<string, unknown> | undefined {
  if (config.output.schema) return config.output.schema;
  if (!config.output.signature) return undefined;
  const signature = parseSignature(config.output.signature);
  return typeof signature === 'string' ? undefined : signatureOutputSchema(signature);
}

/** The JSON object in a final answer: the whole text, a fenced block, or the outermost braces. Throws when none parses. */
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

/** A final answer's JSON, or feedback the model can act on when there is none. */
export function readAnswerJson(answer: string): OutputCheck {
  try {
    return { ok: true, value: jsonIn(answer) };
  } catch (error) {
    const why = errorMessage(error);
    return {
      ok: false,
      message: `Your final answer must be one JSON object matching the output schema; it does not parse (${why}).`,
    };
  }
}
