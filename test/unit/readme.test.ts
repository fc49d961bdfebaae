import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from '../../src/shared/config';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

/** The configuration table's rows: field → [type, default, meaning]. */
function configRows(): Map<string, [string, string, string]> {
  const section = readme.split('## Configuration')[1]?.split('\n## ')[0] ?? '';
  const rows = new Map<string, [string, string, string]>();
  for (const match of section.matchAll(/^\| `(\w+)` \| (.*) \| (.*) \| (.*) \|$/gm)) {
    rows.set(match[1] ?? '', [match[2] ?? '', match[3] ?? '', match[4] ?? '']);
  }
  return rows;
}

describe('README', () => {
  const fields = Object.entries(agentConfigSchema.shape);

  it('documents exactly the fields of the config schema', () => {
    expect([...configRows().keys()].sort()).toEqual(fields.map(([name]) => name).sort());
  });

  it.each(fields)('the %s row says what the schema says (its .describe() text, and a plain default)', (name, field) => {
    const [, documentedDefault, meaning] = configRows().get(name) ?? ['', '', ''];
    expect(field.description, `${name} has no .describe() in src/shared/config.ts`).toBeTruthy();
    expect(meaning).toBe(field.description);
    // Numbers and booleans are written as themselves in the default column; prose defaults are not checked.
    const parsed = field.safeParse(undefined);
    const value: unknown = parsed.success ? parsed.data : undefined;
    if (typeof value === 'number' || typeof value === 'boolean') expect(documentedDefault).toBe(String(value));
  });

  it('quick start is exactly npm start and npm test', () => {
    const quickStart = readme.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
    const commands = /```bash\n([\s\S]*?)```/.exec(quickStart)?.[1]?.trim().split('\n');
    expect(commands).toEqual(['npm start', 'npm test']);
  });
});
