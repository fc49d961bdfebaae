import type { z } from 'zod';
import { compileJsonSchema } from '../../shared/json-schema';
import { answerCandidate, type ModelReply, type OutputCheck } from '../../shared/protocol';
import { readAnswerJson } from '../../shared/output';
import { formatZodIssues } from '../../shared/validation';

/*
 * The final answer's check against the run's output schema, made by the model activity: the validator is zod's, built
 * from the JSON Schema, and zod stays out of the workflow (every cached run held its own copy).
 */

/** Compiled validators by schema text: a run sends the same schema with every call, and compiling is not free. */
const validators = new Map<string, z.ZodType | string>();
const MAX_VALIDATORS = 100;

function validatorFor(schema: Record<string, unknown>): z.ZodType | string {
  const key = JSON.stringify(schema);
  let validator = validators.get(key);
  if (validator === undefined) {
    validator = compileJsonSchema(schema);
    if (validators.size >= MAX_VALIDATORS) validators.delete(validators.keys().next().value ?? '');
    validators.set(key, validator);
  }
  return validator;
}

/** Checks a final answer against the output schema: the parsed value, or a message the model can act on. */
export function checkAnswer(answer: string, validator: z.ZodType): OutputCheck {
  const json = readAnswerJson(answer);
  if (!json.ok) return json;
  const parsed = validator.safeParse(json.value);
  if (!parsed.success)
    return {
      ok: false,
      message: `Your final answer does not match the output schema: ${formatZodIssues(parsed.error.issues)}. Answer again.`,
    };
  return { ok: true, value: parsed.data };
}

/** The reply with its answer candidate checked against the output schema (the reply itself without one). */
export function withOutputCheck(reply: ModelReply, schema: Record<string, unknown> | undefined): ModelReply {
  if (!schema) return reply;
  const validator = validatorFor(schema);
  // Unreachable after the config check at the start, which refuses unusable schemas; the workflow then checks the JSON.
  if (typeof validator === 'string') return reply;
  return { ...reply, output: checkAnswer(answerCandidate(reply), validator) };
}
