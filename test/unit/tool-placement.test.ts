import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createListTools } from '../../src/worker/activities/tools';
import { defineTool, type AnyToolDefinition } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';

const tool = (name: string, extra: Partial<AnyToolDefinition> = {}): AnyToolDefinition =>
  defineTool({
    name,
    description: `${name} tool`,
    category: 'test',
    schema: z.object({}),
    handler: () => 'ok',
    ...extra,
  });

// Where each tool runs is decided by the worker's catalog, which the run records: a run keeps the placement it
// started with when it replays, whatever a later worker would choose.
describe('where a tool runs', () => {
  it('fast tools are local activities by default; long ones, and tools that say so, are remote', async () => {
    const listTools = createListTools(
      new ToolRegistry([
        tool('plain'),
        tool('quick', { timeout: '5s' }),
        tool('at_limit', { timeout: '30s' }),
        tool('slow', { timeout: '2m' }),
        tool('unreadable_timeout', { timeout: '2 minutes' }),
        tool('pinned_remote', { local: false }),
        tool('pinned_local', { timeout: '10m', local: true }),
      ]),
    );
    const { tools } = await listTools();
    expect(Object.fromEntries(tools.map((entry) => [entry.name, entry.local]))).toEqual({
      plain: true,
      quick: true,
      at_limit: true,
      slow: false,
      unreadable_timeout: false,
      pinned_remote: false,
      pinned_local: true,
    });
  });
});
