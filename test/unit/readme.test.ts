import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from '../../src/shared/config';

const readme = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

describe('README', () => {
  it('documents exactly the fields of the config schema', () => {
    const section = readme.split('## Configuration')[1]?.split('\n## ')[0] ?? '';
    const documented = [...section.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(agentConfigSchema.shape).sort());
  });

  it('quick start is exactly npm start and npm test', () => {
    const quickStart = readme.split('## Quick start')[1]?.split('\n## ')[0] ?? '';
    const commands = /```bash\n([\s\S]*?)```/.exec(quickStart)?.[1]?.trim().split('\n');
    expect(commands).toEqual(['npm start', 'npm test']);
  });
});
