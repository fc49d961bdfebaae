import { describe, expect, it } from 'vitest';
import { createListTools, createValidateToolArgs } from '../../src/worker/activities/tools';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { parseRemoteTools, RemoteToolConfigError } from '../../src/worker/tools/remote-tools';

const declared = {
  name: 'reserve_stock',
  description: 'Reserves units of a SKU for an order.',
  parameters: {
    type: 'object',
    properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
    required: ['sku', 'quantity'],
  },
  taskQueue: 'inventory',
  activityType: 'ReserveStock',
};

describe('remote tool declarations', () => {
  it('are listed like any tool, flagged with where they run, with the contract defaults', async () => {
    const registry = new ToolRegistry(
      parseRemoteTools([declared, { ...declared, name: 'stock_level', readOnly: true }]),
    );
    const { tools } = await createListTools(registry)();
    expect(tools[0]).toEqual({
      name: 'reserve_stock',
      description: 'Reserves units of a SKU for an order.',
      category: 'remote',
      timeout: '30s',
      retry: { maximumAttempts: 1, initialInterval: '1s', backoffCoefficient: 2 },
      confirm: 'never',
      local: false,
      parameters: declared.parameters,
      remote: { taskQueue: 'inventory', activityType: 'ReserveStock', scheduleToStartTimeout: '60s' },
    });
    // Read-only, yet never local: so never run ahead inside a model call.
    expect(tools[1]).toMatchObject({ name: 'stock_level', readOnly: true, local: false });
  });

  it('check the model arguments against the JSON Schema on this worker', async () => {
    const validate = createValidateToolArgs(new ToolRegistry(parseRemoteTools([declared])));
    expect(await validate({ tool: 'reserve_stock', args: { sku: 'A1', quantity: 2 } })).toBeNull();
    expect(await validate({ tool: 'reserve_stock', args: { sku: 'A1', quantity: 0 } })).toMatch(
      /^invalid arguments for reserve_stock: quantity: /,
    );
  });

  it('refuse a bad declaration with one line naming every problem', () => {
    const bad = [
      { ...declared, name: 'reserve stock', timeout: 'soon' },
      { ...declared, name: 'twice' },
      { ...declared, name: 'twice' },
    ];
    expect(() => parseRemoteTools(bad, 'WORKER_REMOTE_TOOLS (tools.json)')).toThrow(RemoteToolConfigError);
    expect(() => parseRemoteTools(bad, 'WORKER_REMOTE_TOOLS (tools.json)')).toThrow(
      /^WORKER_REMOTE_TOOLS \(tools\.json\): 0\.name: .*; 0\.timeout: a duration like "30s", "5m" or "500ms"; 2\.name: "twice" is declared twice$/,
    );
    // The workflow's worker checks the model's arguments with it: a pattern that could hang it is refused.
    const slowPattern = { type: 'object', properties: { sku: { type: 'string', pattern: '^(a+)+\\1$' } } };
    expect(() => parseRemoteTools([{ ...declared, parameters: slowPattern }])).toThrow(
      /^remote tools: reserve_stock: parameters is pattern /,
    );
  });
});
