import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../src/cli/main';

const root = path.resolve(__dirname, '../..');

describe('worker --help', () => {
  it('names every variable the worker command reads', () => {
    const help = commandHelp('worker') ?? '';
    const workerEnv = readFileSync(path.join(root, 'src/worker/env.ts'), 'utf8');
    const settings = new Set([...workerEnv.matchAll(/\b(WORKER|OTEL)_[A-Z_]+\b/g)].map(([name]) => name));
    const missing = [...settings].filter((name) => !help.includes(name.replace(/^WORKER_/, '')));
    expect(settings.size).toBeGreaterThan(10);
    expect(missing).toEqual([]);
    for (const name of ['TEMPORAL_ADDRESS', 'TEMPORAL_TASK_QUEUE', 'OPENAI_BASE_URL', 'OPENAI_API_KEY'])
      expect(help).toContain(name);
  });
});

describe('<command> --help', () => {
  it('ends with examples for the commands a newcomer types first, the one-line entries among them', () => {
    for (const command of [
      'init',
      'dev',
      'server',
      'run',
      'worker',
      'pending',
      'approve',
      'trace',
      'result',
      'cancel',
    ]) {
      const help = commandHelp(command) ?? '';
      expect(help, command).toMatch(new RegExp(`\\nExamples:\\n {2}durable-react-agent ${command}( .*)?\\n?`));
    }
    // Examples of one command stay out of another's help.
    expect(commandHelp('run')).not.toContain('durable-react-agent pending');
  });
});
