import { MAX_LISTED_KEYS } from './validation';

/*
 * Checks for what people send a run (decisions, answers, budget decisions), without zod: this module runs inside the
 * workflow, where every run evaluates its modules again and keeps its own copy of them in the worker's cache, and zod
 * with its schemas was most of both costs. The shapes are small and flat, so a few combinators do.
 */

/** Marks a value a check refused; the reason is in the issues list. */
const REFUSED: unique symbol = Symbol('refused');

/**
 * A JSON Schema (draft-07) fragment: what a check admits, for the published wire contract (docs/contract/). Plain
 * data, built once when the module loads, so the contract and the check come from one definition.
 */
export type PayloadSchema = Readonly<Record<string, unknown>>;

/**
 * Checks one value at a path, pushing `path: message` issues; returns the (trimmed) value or {@link REFUSED}. Its
 * `schema` says the same thing as JSON Schema.
 */
export interface Check<T> {
  (value: unknown, path: string, issues: string[]): T | typeof REFUSED;
  readonly schema: PayloadSchema;
}

/** A field that may be absent (or undefined), as in `{ callId, argsHash? }`. */
export interface Optional<T> {
  optional: Check<T>;
}

/** Gives a check function the schema that describes it. */
function described<T>(
  check: (value: unknown, path: string, issues: string[]) => T | typeof REFUSED,
  schema: PayloadSchema,
): Check<T> {
  return Object.assign(check, { schema });
}

type Field = Check<unknown> | Optional<unknown>;
type Shape = Record<string, Field>;
type Required<S extends Shape> = { [K in keyof S as S[K] extends Check<unknown> ? K : never]: Out<S[K]> };
type Partial<S extends Shape> = { [K in keyof S as S[K] extends Optional<unknown> ? K : never]?: Out<S[K]> };
type Out<F> = F extends Check<infer T> ? T : F extends Optional<infer T> ? T : never;
/** What a shape's check returns. */
export type ShapeOf<S extends Shape> = Required<S> & Partial<S>;

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function refuse(issues: string[], path: string, message: string): typeof REFUSED {
  issues.push(path === '' ? message : `${path}: ${message}`);
  return REFUSED;
}

/** A string, trimmed when `trim` is set, then held to its length bounds. */
export function text(options: { trim?: boolean; min?: number; max?: number } = {}): Check<string> {
  const schema: Record<string, unknown> = { type: 'string' };
  if (options.min !== undefined) schema['minLength'] = options.min;
  if (options.max !== undefined) schema['maxLength'] = options.max;
  // The bounds hold after trimming: a non-empty trimmed string has a character that is not white space.
  if (options.trim) {
    schema['description'] = 'Leading and trailing white space is trimmed before the length is checked.';
    if ((options.min ?? 0) > 0) schema['pattern'] = '\\S';
  }
  return described((value, path, issues) => {
    if (typeof value !== 'string') return refuse(issues, path, `expected a string, got ${describe(value)}`);
    const result = options.trim ? value.trim() : value;
    if (options.min !== undefined && result.length < options.min) {
      return refuse(issues, path, options.min === 1 ? 'must not be empty' : `at least ${options.min} characters`);
    }
    if (options.max !== undefined && result.length > options.max) {
      return refuse(issues, path, `at most ${options.max} characters`);
    }
    return result;
  }, schema);
}

/** A boolean. */
export const bool: Check<boolean> = described(
  (value, path, issues) =>
    typeof value === 'boolean' ? value : refuse(issues, path, `expected a boolean, got ${describe(value)}`),
  { type: 'boolean' },
);

/** An integer from `min` to `max`. */
export function integer(min: number, max: number): Check<number> {
  return described(
    (value, path, issues) => {
      if (typeof value !== 'number' || !Number.isInteger(value)) {
        return refuse(issues, path, `expected an integer, got ${describe(value)}`);
      }
      return value < min || value > max ? refuse(issues, path, `must be from ${min} to ${max}`) : value;
    },
    { type: 'integer', minimum: min, maximum: max },
  );
}

/** A finite number above 0 and at most `max` (a money amount: fractions allowed). */
export function positiveNumber(max: number): Check<number> {
  return described(
    (value, path, issues) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        return refuse(issues, path, `expected a number, got ${describe(value)}`);
      }
      return value <= 0 || value > max ? refuse(issues, path, `must be above 0 and at most ${max}`) : value;
    },
    { type: 'number', exclusiveMinimum: 0, maximum: max },
  );
}

/** One of a few strings. */
export function oneOf<V extends string>(values: readonly V[]): Check<V> {
  return described(
    (value, path, issues) =>
      values.includes(value as V) ? (value as V) : refuse(issues, path, `expected one of ${values.join(', ')}`),
    { type: 'string', enum: [...values] },
  );
}

/** An array of at most `max` items, each held to `item`. */
export function list<T>(item: Check<T>, max: number): Check<T[]> {
  return described(
    (value, path, issues) => {
      if (!Array.isArray(value)) return refuse(issues, path, `expected an array, got ${describe(value)}`);
      if (value.length > max) return refuse(issues, path, `at most ${max} items`);
      const before = issues.length;
      const result = value.map((entry, index) => item(entry, `${path}.${index}`, issues));
      return issues.length > before ? REFUSED : (result as T[]);
    },
    { type: 'array', items: item.schema, maxItems: max },
  );
}

/** Any JSON object (not null, not an array), kept as sent. */
export const jsonObject: Check<Record<string, unknown>> = described(
  (value, path, issues) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : refuse(issues, path, `expected an object, got ${describe(value)}`),
  { type: 'object' },
);

/** Marks a field of a {@link strict} shape as one that may be left out. */
export function optional<T>(check: Check<T>): Optional<T> {
  return { optional: check };
}

/** An object with exactly these fields: unknown ones are refused (a few named, the rest counted). */
export function strict<S extends Shape>(shape: S): Check<ShapeOf<S>> {
  const fields = Object.entries(shape);
  const schema = {
    type: 'object',
    properties: Object.fromEntries(
      fields.map(([key, field]) => [key, 'optional' in field ? field.optional.schema : field.schema]),
    ),
    required: fields.filter(([, field]) => !('optional' in field)).map(([key]) => key),
    additionalProperties: false,
  };
  return described((value, path, issues) => {
    const object = jsonObject(value, path, issues);
    if (object === REFUSED) return REFUSED;
    const before = issues.length;
    const unknown = Object.keys(object).filter((key) => !Object.hasOwn(shape, key));
    if (unknown.length > 0) {
      const more = unknown.length > MAX_LISTED_KEYS ? ` and ${unknown.length - MAX_LISTED_KEYS} more` : '';
      const listed = unknown.slice(0, MAX_LISTED_KEYS).join(', ');
      refuse(issues, path, `unknown field${unknown.length > 1 ? 's' : ''}: ${listed}${more}`);
    }
    const result: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(shape)) {
      const at = path === '' ? key : `${path}.${key}`;
      const entry = object[key];
      if ('optional' in field) {
        if (entry === undefined) continue;
        const checked = field.optional(entry, at, issues);
        if (checked !== REFUSED) result[key] = checked;
      } else if (entry === undefined) {
        refuse(issues, at, 'required');
      } else {
        const checked = field(entry, at, issues);
        if (checked !== REFUSED) result[key] = checked;
      }
    }
    return issues.length > before ? REFUSED : (result as ShapeOf<S>);
  }, schema);
}

/** One of several strict shapes, picked by the value of `key` (e.g. `decision: 'approve' | 'reject'`). */
export function variants<T>(key: string, shapes: Record<string, Check<T>>): Check<T> {
  const names = Object.keys(shapes);
  // Each variant's shape, its tag held to the one value that picks it.
  const schema = {
    oneOf: Object.entries(shapes).map(([tag, shape]) => {
      const properties = (shape.schema['properties'] ?? {}) as Record<string, unknown>;
      return { ...shape.schema, properties: { ...properties, [key]: { const: tag } } };
    }),
  };
  return described((value, path, issues) => {
    const object = jsonObject(value, path, issues);
    if (object === REFUSED) return REFUSED;
    const tag = object[key];
    const shape = typeof tag === 'string' && Object.hasOwn(shapes, tag) ? shapes[tag] : undefined;
    if (!shape) return refuse(issues, path === '' ? key : `${path}.${key}`, `expected one of ${names.join(', ')}`);
    return shape(object, path, issues);
  }, schema);
}

/** Runs a check on a whole payload: the value, or every issue on one line. */
export function checkPayload<T>(
  check: Check<T>,
  value: unknown,
): { ok: true; value: T } | { ok: false; message: string } {
  const issues: string[] = [];
  const result = check(value, '', issues);
  return result === REFUSED ? { ok: false, message: issues.join('; ') } : { ok: true, value: result };
}
