/**
 * Writes the configuration reference into docs/configuration.md, between the config-reference markers, from the
 * config schema itself: one row per field with its type, default and `.describe()` text. A field that is an object
 * of fields (a group) gets a table of its own with `group.field` rows. test/unit/config-reference.test.ts fails when
 * the checked-in page differs from what this would write.
 *
 *   npm run docs:config
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as prettier from 'prettier';
import { z } from 'zod';
import { agentConfigSchema } from '../src/shared/agent-config';

export const REFERENCE_START = '<!-- config-reference:start -->';
export const REFERENCE_END = '<!-- config-reference:end -->';
/** The page the reference lives in, relative to the repository root. */
export const REFERENCE_PAGE = 'docs/configuration.md';

/** Defaults longer than this are printed in full below the tables instead of in a cell. */
const INLINE_DEFAULT_CHARS = 40;

/** One table row, before markdown escaping. */
export interface ReferenceRow {
  name: string;
  type: string;
  default: string;
  description: string;
}

/** A table: the top-level fields (no name), or one group's fields. */
export interface ReferenceTable {
  group: string | undefined;
  description: string | undefined;
  rows: ReferenceRow[];
}

/** What the walker found: the tables, and the long defaults printed after them. */
export interface ConfigReference {
  tables: ReferenceTable[];
  longDefaults: Array<{ name: string; value: string }>;
}

type Wrapped = { inner: z.ZodType; optional: boolean; defaultValue: unknown; hasDefault: boolean };

/** Strips optional, nullable, default and pipe wrappers, noting what they said about absence and defaults. */
function unwrap(schema: z.ZodType): Wrapped {
  let inner: z.ZodType = schema;
  let optional = false;
  let hasDefault = false;
  let defaultValue: unknown;
  for (;;) {
    if (inner instanceof z.ZodOptional) {
      optional = true;
      inner = inner.unwrap() as z.ZodType;
    } else if (inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault) {
      if (!hasDefault) defaultValue = inner.def.defaultValue;
      hasDefault = true;
      inner = inner.unwrap() as z.ZodType;
    } else if (inner instanceof z.ZodPipe) {
      inner = inner.in as z.ZodType;
    } else if (inner instanceof z.ZodReadonly) {
      inner = inner.unwrap() as z.ZodType;
    } else {
      return { inner, optional, defaultValue, hasDefault };
    }
  }
}

/** The first `.describe()` text from the outside in: wrappers added after `.describe()` do not carry it. */
function descriptionOf(schema: z.ZodType): string | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current.description) return current.description;
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodPrefault ||
      current instanceof z.ZodReadonly
    ) {
      current = current.unwrap() as z.ZodType;
    } else if (current instanceof z.ZodPipe) {
      current = current.in as z.ZodType;
    } else {
      current = undefined;
    }
  }
  return undefined;
}

const formatNumber = (value: number): string =>
  Math.abs(value) >= 10_000 ? value.toLocaleString('en-US') : String(value);

/** `integer 1–100`, `number ≥ 0`, `positive number`…, from the number's checks. */
function numberType(schema: z.ZodNumber): string {
  let integer = false;
  let low: { value: number; inclusive: boolean } | undefined;
  let high: { value: number; inclusive: boolean } | undefined;
  for (const check of schema.def.checks ?? []) {
    const def = check._zod.def as { check: string; format?: string; value?: number; inclusive?: boolean };
    if (def.check === 'number_format' && /int/.test(def.format ?? '')) integer = true;
    if (def.check === 'greater_than' && typeof def.value === 'number')
      low = { value: def.value, inclusive: def.inclusive ?? true };
    if (def.check === 'less_than' && typeof def.value === 'number')
      high = { value: def.value, inclusive: def.inclusive ?? true };
  }
  const base = integer ? 'integer' : 'number';
  if (low && !low.inclusive && low.value === 0)
    return high ? `positive ${base} ≤ ${formatNumber(high.value)}` : `positive ${base}`;
  if (low && high && low.inclusive && high.inclusive)
    return `${base} ${formatNumber(low.value)}–${formatNumber(high.value)}`;
  const bounds = [
    low ? `${low.inclusive ? '≥' : '>'} ${formatNumber(low.value)}` : '',
    high ? `${high.inclusive ? '≤' : '<'} ${formatNumber(high.value)}` : '',
  ].filter(Boolean);
  return [base, bounds.join(', ')].filter(Boolean).join(' ');
}

const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

/** A markdown rendering of a schema's type; nested objects are written inline as `{ a, b? }`. */
export function typeOf(schema: z.ZodType): string {
  const { inner } = unwrap(schema);
  if (inner instanceof z.ZodNullable) return `${typeOf(inner.unwrap() as z.ZodType)} | null`;
  if (inner instanceof z.ZodString) return 'string';
  if (inner instanceof z.ZodNumber) return numberType(inner);
  if (inner instanceof z.ZodBoolean) return 'boolean';
  if (inner instanceof z.ZodLiteral) return [...inner.values].map((value) => `\`${quote(value)}\``).join(' | ');
  if (inner instanceof z.ZodEnum) return inner.options.map((option) => `\`${quote(option)}\``).join(' | ');
  if (inner instanceof z.ZodUnion) return (inner.options as z.ZodType[]).map(typeOf).join(' | ');
  if (inner instanceof z.ZodArray) {
    const element = typeOf(inner.element as z.ZodType);
    const plain = /^[\w`'{}[\]]+$/.test(element) || /^\{[^|]*\}$/.test(element);
    return plain ? `${element}[]` : `(${element})[]`;
  }
  if (inner instanceof z.ZodRecord) {
    return `{ [${typeOf(inner.keyType as z.ZodType)}]: ${typeOf(inner.valueType as z.ZodType)} }`;
  }
  if (inner instanceof z.ZodObject) {
    const keys = Object.entries(inner.shape as Record<string, z.ZodType>).map(([key, field]) => {
      const { inner: value, optional, hasDefault } = unwrap(field);
      if (value instanceof z.ZodLiteral) return `${key}: ${[...value.values].map(quote).join(' | ')}`;
      return optional || hasDefault ? `${key}?` : key;
    });
    return keys.length ? `{ ${keys.join(', ')} }` : '{}';
  }
  if (inner instanceof z.ZodUnknown || inner instanceof z.ZodAny) return 'unknown';
  return inner.def.type;
}

/** A default as a table cell: numbers and booleans as themselves, short values as code, long texts by reference. */
function defaultCell(name: string, wrapped: Wrapped, longDefaults: ConfigReference['longDefaults']): string {
  if (!wrapped.hasDefault || wrapped.defaultValue === undefined) return 'none';
  const value = wrapped.defaultValue;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const text = typeof value === 'string' ? quote(value) : JSON.stringify(value);
  if (text.length <= INLINE_DEFAULT_CHARS && !text.includes('\n')) return `\`${text}\``;
  longDefaults.push({ name, value: typeof value === 'string' ? value : JSON.stringify(value, null, 2) });
  return `see [default texts](#default-texts)`;
}

/** True for a field that is itself an object of fields (a config group), not a record or a value. */
function isGroup(schema: z.ZodType): boolean {
  return unwrap(schema).inner instanceof z.ZodObject;
}

function rowsOf(
  shape: Record<string, z.ZodType>,
  prefix: string,
  longDefaults: ConfigReference['longDefaults'],
): ReferenceRow[] {
  return Object.entries(shape).flatMap(([key, field]) => {
    const name = `${prefix}${key}`;
    const wrapped = unwrap(field);
    // A group inside a group is flattened into its parent's table: `limits.time.seconds`.
    if (prefix && wrapped.inner instanceof z.ZodObject) {
      return rowsOf(wrapped.inner.shape, `${name}.`, longDefaults);
    }
    return [
      {
        name,
        type: typeOf(field),
        default: defaultCell(name, wrapped, longDefaults),
        description: descriptionOf(field) ?? '',
      },
    ];
  });
}

/** Walks a config schema: top-level fields in one table, each group's fields in a table of its own. */
export function collectConfigReference(schema: z.ZodType): ConfigReference {
  const root = unwrap(schema).inner;
  if (!(root instanceof z.ZodObject)) throw new TypeError(`the config schema is a ${root.def.type}, not an object`);
  const longDefaults: ConfigReference['longDefaults'] = [];
  const shape = root.shape as Record<string, z.ZodType>;
  const plain = Object.fromEntries(Object.entries(shape).filter(([, field]) => !isGroup(field)));
  const tables: ReferenceTable[] = [
    { group: undefined, description: undefined, rows: rowsOf(plain, '', longDefaults) },
  ];
  for (const [group, field] of Object.entries(shape)) {
    if (!isGroup(field)) continue;
    const inner = unwrap(field).inner as z.ZodObject;
    tables.push({
      group,
      description: descriptionOf(field),
      rows: rowsOf(inner.shape, `${group}.`, longDefaults),
    });
  }
  return { tables: tables.filter((table) => table.rows.length > 0), longDefaults };
}

/** A cell's text: one line, pipes escaped (GFM splits on them even inside code spans). */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

/** The markdown between (and including) the markers. */
export function renderConfigReference(schema: z.ZodType): string {
  const { tables, longDefaults } = collectConfigReference(schema);
  const out: string[] = [
    REFERENCE_START,
    '<!-- Generated by `npm run docs:config` from agentConfigSchema and the .describe() texts of its fields (src/shared/config.ts): edit those, not this section. -->',
    '',
  ];
  for (const table of tables) {
    if (table.group !== undefined) {
      out.push(`### \`${table.group}\``, '');
      if (table.description) out.push(table.description.replace(/\s*\n\s*/g, ' '), '');
    }
    out.push('| field | type | default | meaning |', '| --- | --- | --- | --- |');
    for (const row of table.rows) {
      out.push(`| \`${row.name}\` | ${cell(row.type)} | ${cell(row.default)} | ${cell(row.description)} |`);
    }
    out.push('');
  }
  if (longDefaults.length > 0) {
    out.push('### Default texts', '');
    for (const { name, value } of longDefaults) {
      const fence = value.includes('```') ? '~~~~' : '```';
      out.push(`\`${name}\`:`, '', `${fence}text`, value, fence, '');
    }
  }
  out.push(REFERENCE_END);
  return out.join('\n');
}

/** The document with its marked section replaced; throws when the markers are missing or out of order. */
export function replaceMarkedSection(document: string, section: string): string {
  const start = document.indexOf(REFERENCE_START);
  const end = document.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error(`${REFERENCE_START} … ${REFERENCE_END} not found`);
  return document.slice(0, start) + section + document.slice(end + REFERENCE_END.length);
}

const root = path.resolve(__dirname, '..');

/** The page as `prettier --write` would leave it, or as it is while .prettierignore leaves markdown alone. */
async function formatted(file: string, text: string): Promise<string> {
  const info = await prettier.getFileInfo(file, { ignorePath: path.join(root, '.prettierignore') });
  if (info.ignored) return text;
  const options = await prettier.resolveConfig(file);
  return prettier.format(text, { ...options, filepath: file });
}

/** The reference page as `npm run docs:config` would write it, given its current text. */
export async function regeneratedPage(current: string): Promise<string> {
  const file = path.join(root, REFERENCE_PAGE);
  return formatted(file, replaceMarkedSection(current, renderConfigReference(agentConfigSchema)));
}

async function main(): Promise<void> {
  const file = path.join(root, REFERENCE_PAGE);
  const current = readFileSync(file, 'utf8');
  const next = await regeneratedPage(current);
  if (next === current) {
    console.log(`${REFERENCE_PAGE} is up to date`);
    return;
  }
  writeFileSync(file, next);
  console.log(`${REFERENCE_PAGE}: configuration reference rewritten`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
