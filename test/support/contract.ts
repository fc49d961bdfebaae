import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { CONTRACT_DIR } from '../../scripts/contract';

/** The published contract's files, as a client in another language would read them from docs/contract/. */
export function publishedContract(): Map<string, Record<string, unknown>> {
  const dir = path.resolve(__dirname, '../..', CONTRACT_DIR);
  return new Map(
    readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file, JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>]),
  );
}

/**
 * Validators of the published schemas, by message name and part (`input` or `result`). Ajv in strict mode (type lists allowed: they are standard), told only
 * the contract's two annotations (`contractVersion`, `message`), so a schema using anything else fails to load.
 */
export function contractValidators(): (message: string, part: 'input' | 'result') => ValidateFunction {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addVocabulary(['contractVersion', 'message']);
  for (const [file, schema] of publishedContract()) if (file !== 'index.json') ajv.addSchema(schema);
  return (message, part) => {
    const validate = ajv.getSchema(`${message}.json#/definitions/${part}`);
    if (!validate) throw new Error(`docs/contract/${message}.json publishes no ${part}`);
    return validate;
  };
}

/** The ajv errors of a value as one readable line, for an assertion's message. */
export function validationProblems(validate: ValidateFunction, value: unknown): string {
  return validate(value) ? '' : JSON.stringify(validate.errors?.slice(0, 5));
}
