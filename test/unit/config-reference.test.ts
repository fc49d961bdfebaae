import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  REFERENCE_END,
  REFERENCE_PAGE,
  REFERENCE_START,
  collectConfigReference,
  regeneratedPage,
  renderConfigReference,
  replaceMarkedSection,
} from '../../scripts/config-reference';
import { agentConfigSchema } from '../../src/shared/agent-config';

const page = path.resolve(__dirname, '../..', REFERENCE_PAGE);

/** A config shaped the way the run config is being regrouped: plain fields and groups of fields. */
const grouped = z.strictObject({
  tools: z.array(z.string().min(1)).optional().describe('tools offered to the model'),
  mode: z
    .union([z.boolean(), z.literal('auto')])
    .default('auto')
    .describe('checks | or not'),
  limits: z
    .strictObject({
      maxIterations: z.number().int().min(1).max(100_000).default(10).describe('model calls before the run stops'),
      timeoutSeconds: z.number().positive().optional().describe('a durable timer'),
      nested: z.strictObject({ deep: z.boolean().default(true).describe('two levels down') }).prefault({}),
    })
    .prefault({})
    .describe("the run's caps"),
  model: z
    .strictObject({
      name: z.string().min(1).optional().describe('model for this run'),
      calling: z.enum(['native', 'text']).default('native').describe('how tools are offered'),
      prompt: z.string().default('x'.repeat(80)).describe('a long default'),
    })
    .optional(),
  caps: z.record(z.string(), z.number().int().min(0)).default({}).describe('per-tool caps'),
  helpers: z
    .record(z.string(), z.strictObject({ description: z.string(), tools: z.array(z.string()).optional() }))
    .default({})
    .describe('subagents'),
});

describe('the configuration reference', () => {
  it(`is what npm run docs:config writes (${REFERENCE_PAGE})`, async () => {
    const current = readFileSync(page, 'utf8');
    expect(current, `${REFERENCE_PAGE} needs its ${REFERENCE_START} and ${REFERENCE_END} markers`).toContain(
      REFERENCE_START,
    );
    const expected = await regeneratedPage(current);
    // Not toBe: a diff of the whole page would bury the one instruction that fixes it.
    if (expected !== current) {
      expect.fail(`${REFERENCE_PAGE} differs from the config schema: run npm run docs:config`);
    }
  });

  it('documents every field of the config schema with its .describe() text', () => {
    const rows = collectConfigReference(agentConfigSchema).tables.flatMap((table) => table.rows);
    const documented = new Set(rows.map((row) => row.name.split('.')[0]));
    expect([...documented].sort()).toEqual(Object.keys(agentConfigSchema.shape).sort());
    for (const row of rows)
      expect(row.description, `${row.name} has no .describe() in src/shared/config.ts`).not.toBe('');
  });

  it('walks groups into group.field rows, one table per group, nested groups flattened', () => {
    const { tables, longDefaults } = collectConfigReference(grouped);
    expect(tables.map((table) => [table.group, table.description])).toEqual([
      [undefined, undefined],
      ['limits', "the run's caps"],
      ['model', undefined],
    ]);
    const rows = Object.fromEntries(tables.flatMap((table) => table.rows).map((row) => [row.name, row]));
    expect(Object.keys(rows)).toEqual([
      'tools',
      'mode',
      'caps',
      'helpers',
      'limits.maxIterations',
      'limits.timeoutSeconds',
      'limits.nested.deep',
      'model.name',
      'model.calling',
      'model.prompt',
    ]);
    expect(rows['tools']).toMatchObject({ type: 'string[]', default: 'none' });
    expect(rows['mode']).toMatchObject({ type: "boolean | `'auto'`", default: "`'auto'`" });
    expect(rows['caps']).toMatchObject({ type: '{ [string]: integer ≥ 0 }', default: '`{}`' });
    expect(rows['helpers']).toMatchObject({ type: '{ [string]: { description, tools? } }' });
    expect(rows['limits.maxIterations']).toMatchObject({
      type: 'integer 1–100,000',
      default: '10',
      description: 'model calls before the run stops',
    });
    expect(rows['limits.timeoutSeconds']).toMatchObject({ type: 'positive number', default: 'none' });
    expect(rows['limits.nested.deep']).toMatchObject({ type: 'boolean', default: 'true' });
    expect(rows['model.calling']).toMatchObject({ type: "`'native'` | `'text'`", default: "`'native'`" });
    expect(rows['model.prompt']?.default).toBe('see [default texts](#default-texts)');
    expect(longDefaults).toEqual([{ name: 'model.prompt', value: 'x'.repeat(80) }]);
  });

  it('renders markdown tables whose cells keep their pipes escaped', () => {
    const text = renderConfigReference(grouped);
    expect(text.startsWith(REFERENCE_START) && text.endsWith(REFERENCE_END)).toBe(true);
    expect(text).toContain("| `mode` | boolean \\| `'auto'` | `'auto'` | checks \\| or not |");
    expect(text).toContain("### `limits`\n\nthe run's caps\n\n| field | type | default | meaning |");
    expect(text).toContain('### Default texts');
  });

  it('replaces only the marked section, and refuses a page without markers', () => {
    const document = `# Title\n\nbefore\n\n${REFERENCE_START}\nold\n${REFERENCE_END}\n\nafter\n`;
    expect(replaceMarkedSection(document, `${REFERENCE_START}\nnew\n${REFERENCE_END}`)).toBe(
      `# Title\n\nbefore\n\n${REFERENCE_START}\nnew\n${REFERENCE_END}\n\nafter\n`,
    );
    expect(() => replaceMarkedSection('# Title\n', 'x')).toThrow('not found');
  });
});
