/** One field of a signature: `name` or `name: type`. */
export interface SignatureField {
  name: string;
  type: 'string' | 'number' | 'boolean' | 'list';
}

/** A parsed signature such as `"context, question -> answer, sources: list"`. */
export interface Signature {
  inputs: SignatureField[];
  outputs: SignatureField[];
}

const FIELD = /^([a-zA-Z_][\w]*)\s*(?::\s*(string|number|boolean|list))?$/;

function fields(part: string, side: string): SignatureField[] | string {
  const items = part.split(',').map((item) => item.trim());
  const parsed: SignatureField[] = [];
  for (const item of items) {
    const match = FIELD.exec(item);
    if (!match?.[1]) return `${side} field "${item}" is not "name" or "name: string|number|boolean|list"`;
    parsed.push({ name: match[1], type: (match[2] as SignatureField['type'] | undefined) ?? 'string' });
  }
  return parsed;
}

/** Parses a signature, or returns a one-line reason it is not one. */
export function parseSignature(text: string): Signature | string {
  const sides = text.split('->');
  if (sides.length !== 2) return 'a signature is "inputs -> outputs", e.g. "context, question -> answer, sources"';
  const inputs = fields(sides[0] ?? '', 'input');
  const outputs = fields(sides[1] ?? '', 'output');
  if (typeof inputs === 'string') return inputs;
  if (typeof outputs === 'string') return outputs;
  return { inputs, outputs };
}

/** The JSON Schema a signature's outputs describe: an object with every output field required. */
export function signatureOutputSchema(signature: Signature): Record<string, unknown> {
  const types: Record<SignatureField['type'], unknown> = {
    string: { type: 'string' },
    number: { type: 'number' },
    boolean: { type: 'boolean' },
    list: { type: 'array', items: { type: 'string' } },
  };
  return {
    type: 'object',
    properties: Object.fromEntries(signature.outputs.map((field) => [field.name, types[field.type]])),
    required: signature.outputs.map((field) => field.name),
  };
}

/** Renders a signature's inputs as the query text the model sees. */
export function renderInputs(signature: Signature, values: Record<string, unknown>): string | { missing: string[] } {
  const missing = signature.inputs.filter((field) => values[field.name] === undefined).map((field) => field.name);
  if (missing.length > 0) return { missing };
  return signature.inputs
    .map((field) => {
      const value = values[field.name];
      return `${field.name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    })
    .join('\n');
}
