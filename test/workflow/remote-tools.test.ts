import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { CompleteAsyncError, Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { ApplicationFailure, RawValue } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RemoteToolInput } from '../../src/shared/tool-protocol';
import { checkRecordings, loadSources } from '../../src/replay/replay-check';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { parseRemoteTools, type RemoteToolConfig } from '../../src/worker/tools/remote-tools';
import { useHarness, waitForPending } from '../support/harness';

/*
 * Remote tools: a second worker, with no agent plugin and none of our code, implements tools as plain activities on
 * its own task queue, as a worker in Go or Python would. Our worker only declares them.
 */

const remoteQueue = `remote-tools-${randomUUID()}`;
const nobodyQueue = `nobody-polls-${randomUUID()}`;

/** Every input the remote worker's activities received, by activity type. */
const received = new Map<string, RemoteToolInput[]>();
const receivedBy = (activityType: string): RemoteToolInput[] => received.get(activityType) ?? [];

function recording(activityType: string, run: (input: RemoteToolInput) => unknown) {
  return async (input: RemoteToolInput): Promise<unknown> => {
    received.set(activityType, [...receivedBy(activityType), input]);
    return run(input);
  };
}

const remoteTools: RemoteToolConfig[] = [
  {
    name: 'stock_level',
    description: 'How many units of a SKU the warehouse holds.',
    parameters: { type: 'object', properties: { sku: { type: 'string' } }, required: ['sku'] },
    taskQueue: remoteQueue,
    activityType: 'StockLevel',
    readOnly: true,
  },
  {
    name: 'reserve_stock',
    description: 'Reserves units of a SKU for an order.',
    parameters: {
      type: 'object',
      properties: { sku: { type: 'string' }, quantity: { type: 'integer', minimum: 1 } },
      required: ['sku', 'quantity'],
    },
    taskQueue: remoteQueue,
    activityType: 'ReserveStock',
    confirm: 'always',
  },
  {
    name: 'warehouse_sync',
    description: 'Synchronises the warehouse (fails while the warehouse is offline).',
    parameters: { type: 'object', properties: {} },
    taskQueue: remoteQueue,
    activityType: 'WarehouseSync',
    retry: { maximumAttempts: 2, initialInterval: '100ms', backoffCoefficient: 1 },
  },
  {
    name: 'odd_result',
    description: 'Answers with a payload in the encoding it is asked for, as a worker with another converter would.',
    parameters: {
      type: 'object',
      properties: {
        encoding: { type: 'string' },
        data: { type: 'string' },
        as: { enum: ['result', 'error detail', 'malformed cause'] },
      },
      required: ['encoding', 'data', 'as'],
    },
    taskQueue: remoteQueue,
    activityType: 'OddResult',
    readOnly: true,
    retry: { maximumAttempts: 1 },
  },
  {
    name: 'misbehaving',
    description: 'Misbehaves in the way it is asked to, as a hung or careless worker would.',
    parameters: {
      type: 'object',
      properties: { how: { enum: ['hang', 'heartbeat forever', 'huge result', 'complete twice'] } },
      required: ['how'],
    },
    taskQueue: remoteQueue,
    activityType: 'Misbehaving',
    readOnly: true,
    timeout: '3s',
    retry: { maximumAttempts: 2, initialInterval: '100ms', backoffCoefficient: 1 },
  },
  {
    name: 'ghost_tool',
    description: 'A tool whose worker is not running.',
    parameters: { type: 'object', properties: {} },
    taskQueue: nobodyQueue,
    activityType: 'Ghost',
    scheduleToStartTimeout: '2s',
  },
];

const harness = useHarness({ remoteTools });

let connection: NativeConnection | undefined;
let remoteClient: Client | undefined;
let secondCompletion: unknown;
let remoteWorker: Worker | undefined;
let running: Promise<void> | undefined;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  remoteClient = new Client({
    connection: await Connection.connect({ address: inject('temporalAddress') }),
    namespace: inject('temporalNamespace'),
  });
  remoteWorker = await Worker.create({
    connection,
    namespace: inject('temporalNamespace'),
    taskQueue: remoteQueue,
    shutdownGraceTime: '1s',
    dataConverter: { failureConverterPath: path.resolve(__dirname, '../fixtures/remote/verbatim-failures.cjs') },
    activities: {
      StockLevel: recording('StockLevel', (input) => `${(input.args as { sku: string }).sku}: 12 units in stock`),
      ReserveStock: recording('ReserveStock', (input) => ({ reserved: (input.args as { quantity: number }).quantity })),
      OddResult: recording('OddResult', (input) => {
        const { encoding, data, as } = input.args as { encoding: string; data: string; as: string };
        const payload = RawValue.fromPayload({
          metadata: { encoding: new TextEncoder().encode(encoding) },
          data: new TextEncoder().encode(data),
        });
        if (as === 'result') return payload;
        if (as === 'error detail')
          throw ApplicationFailure.create({ message: 'with an odd detail', nonRetryable: true, details: [payload] });
        // Failure protos as another SDK (or a hostile worker) may write them: sent verbatim by the worker's converter.
        const top = {
          message: 'a failure with an odd cause',
          applicationFailureInfo: { type: 'Odd', nonRetryable: true },
        };
        throw Object.assign(ApplicationFailure.create({ message: 'replaced' }), {
          verbatimFailure: { ...top, cause: { message: 'no type', childWorkflowExecutionFailureInfo: {} } },
        });
      }),
      Misbehaving: recording('Misbehaving', async (input) => {
        const { how } = input.args as { how: string };
        const context = Context.current();
        // Never answers; only the worker's own shutdown ends it, after the test.
        if (how === 'hang') return context.cancelled;
        if (how === 'heartbeat forever')
          for (;;) {
            context.heartbeat('still busy');
            await context.sleep(200);
          }
        // Over the server's 2 MB limit on a payload: the server refuses the completion.
        if (how === 'huge result') return 'x'.repeat(3 * 1024 * 1024);
        // Completes through the client, twice, from outside the activity (as an async-completing worker would).
        const { taskToken } = context.info;
        setTimeout(() => {
          void (async () => {
            await remoteClient!.activity.complete(taskToken, 'first completion');
            await remoteClient!.activity.complete(taskToken, 'second completion').catch((error: unknown) => {
              secondCompletion = error;
            });
          })();
        }, 100);
        throw new CompleteAsyncError();
      }),
      WarehouseSync: recording('WarehouseSync', () => {
        throw ApplicationFailure.create({ message: 'warehouse offline', type: 'WarehouseOffline' });
      }),
    },
  });
  running = remoteWorker.run();
});

afterAll(async () => {
  remoteWorker?.shutdown();
  await running;
  await connection?.close();
  await remoteClient?.connection.close();
});

const thought = 'The order needs stock, so the warehouse tools are the way to find and hold it.';

describe('remote tools (activities of another worker, on its task queue)', () => {
  it('a person approves one call; it runs once in the other worker, with its key, and the trace and events show it', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'stock_level', args: { sku: 'A1' } }] },
      { thought, toolCalls: [{ name: 'reserve_stock', args: { sku: 'A1', quantity: 2 } }] },
      { answer: 'Reserved 2 units of A1.' },
    ]);
    const events: Array<{ type: string }> = [];
    const streamed = (async () => {
      for await (const event of run.events()) events.push(event);
    })();
    const pending = await waitForPending(harness, run.workflowId);
    expect(pending.approvals[0]).toMatchObject({ tool: 'reserve_stock', args: { sku: 'A1', quantity: 2 } });
    // Nothing ran in the other worker before the decision.
    expect(receivedBy('ReserveStock').filter((input) => input.idempotencyKey.startsWith(run.firstRunId))).toEqual([]);
    await harness.agents.handle(run.workflowId).approve();
    const result = await run.result();
    await streamed;

    expect(result.finalAnswer).toBe('Reserved 2 units of A1.');
    expect(receivedBy('StockLevel').filter((input) => input.idempotencyKey.startsWith(run.firstRunId))).toEqual([
      { tool: 'stock_level', args: { sku: 'A1' }, callId: 'c1-1', idempotencyKey: `${run.firstRunId}:c1-1` },
    ]);
    expect(receivedBy('ReserveStock').filter((input) => input.idempotencyKey.startsWith(run.firstRunId))).toEqual([
      {
        tool: 'reserve_stock',
        args: { sku: 'A1', quantity: 2 },
        callId: 'c2-1',
        idempotencyKey: `${run.firstRunId}:c2-1`,
      },
    ]);
    // A string result is the observation as it is; any other JSON value is encoded and kept as data.
    expect(result.trace.steps[0]).toMatchObject({ observation: 'A1: 12 units in stock' });
    expect(result.trace.steps[0]?.isError).toBeFalsy();
    expect(result.trace.steps[1]).toMatchObject({
      action: { type: 'tool_call', tool: 'reserve_stock', args: { sku: 'A1', quantity: 2 } },
      observation: '{"reserved":2}',
      observationData: { reserved: 2 },
      decision: { kind: 'approve' },
    });
    // The recorded run replays on the workflow code that made it: remote calls are deterministic commands.
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history);
    const toolEvents = events.filter((event) => event.type === 'tool_started' || event.type === 'tool_finished');
    expect(toolEvents).toEqual([
      expect.objectContaining({ type: 'tool_started', callId: 'c1-1', tool: 'stock_level' }),
      expect.objectContaining({ type: 'tool_finished', callId: 'c1-1', tool: 'stock_level', isError: false }),
      expect.objectContaining({ type: 'tool_started', callId: 'c2-1', tool: 'reserve_stock' }),
      expect.objectContaining({ type: 'tool_finished', callId: 'c2-1', tool: 'reserve_stock', isError: false }),
    ]);
  });

  it("a person's edit is checked against the JSON Schema, and the other worker gets the edited arguments", async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'reserve_stock', args: { sku: 'C3', quantity: 5 } }] },
      { answer: 'Reserved what was approved.' },
    ]);
    await waitForPending(harness, run.workflowId);
    await expect(harness.agents.handle(run.workflowId).edit('c1-1', { sku: 'C3', quantity: 0 })).rejects.toMatchObject({
      reason: 'invalid_edit',
    });
    await harness.agents.handle(run.workflowId).edit('c1-1', { sku: 'C3', quantity: 1 });
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ decision: { kind: 'edit' }, observation: '{"reserved":1}' });
    expect(receivedBy('ReserveStock').filter((input) => input.idempotencyKey.startsWith(run.firstRunId))).toEqual([
      {
        tool: 'reserve_stock',
        args: { sku: 'C3', quantity: 1 },
        callId: 'c1-1',
        idempotencyKey: `${run.firstRunId}:c1-1`,
      },
    ]);
  });

  it('an activity that fails after its retries is an error observation carrying its message', async () => {
    const before = receivedBy('WarehouseSync').length;
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'warehouse_sync', args: {} }] },
      { answer: 'The warehouse is offline.' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('The warehouse is offline.');
    expect(result.trace.steps[0]).toMatchObject({
      isError: true,
      observation: '[error] warehouse_sync({}): warehouse offline',
    });
    // The declared retry policy: two attempts, both with the call's one idempotency key.
    expect(receivedBy('WarehouseSync').slice(before)).toEqual([
      { tool: 'warehouse_sync', args: {}, callId: 'c1-1', idempotencyKey: `${run.firstRunId}:c1-1` },
      { tool: 'warehouse_sync', args: {}, callId: 'c1-1', idempotencyKey: `${run.firstRunId}:c1-1` },
    ]);
  });

  // A rogue or sloppy worker on the queue (another language's converter, a broken serialiser, other encryption keys)
  // costs the run one clear observation: its payload used to fail every workflow task of the run, forever.
  it.each([
    ['an unknown encoding', 'x/evil', '{"a":1}', 'result', /could not be read: Unknown encoding: x\/evil/],
    ['protobuf JSON', 'json/protobuf', '{"a":1}', 'result', /could not be read: Unknown encoding: json\/protobuf/],
    ['broken JSON', 'json/plain', '{"a":', 'result', /could not be read: .*JSON/],
    ['an error detail in an unknown encoding', 'x/evil', 'boom', 'error detail', /with an odd detail$/],
    ['a failure whose cause has no type', '', '', 'malformed cause', /a failure with an odd cause$/],
  ])(
    'a result in %s is an observation the model can act on, and the run goes on',
    async (_, encoding, data, as, text) => {
      const run = await harness.start([
        { thought, toolCalls: [{ name: 'odd_result', args: { encoding, data, as } }] },
        { answer: 'The odd tool answered in a way nobody can read.' },
      ]);
      const result = await run.result();
      expect(result.finalAnswer).toBe('The odd tool answered in a way nobody can read.');
      expect(result.trace.steps[0]?.isError).toBe(true);
      expect(result.trace.steps[0]?.observation).toMatch(text);
      const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
      expect(history.events?.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    },
  );

  // Whatever the other worker does, the run pays at most the tool's timeout (3 s × 2 attempts here) for it.
  it.each([
    ['never completes', 'hang', /timed out after 3s/],
    ['heartbeats forever', 'heartbeat forever', /timed out after 3s/],
    ['returns more than the server takes', 'huge result', /Complete result exceeds size limit/],
  ])('a worker that %s costs the run one observation within its timeout', async (_, how, text) => {
    const started = Date.now();
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'misbehaving', args: { how } }] },
      { answer: 'The tool misbehaved.' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('The tool misbehaved.');
    expect(result.trace.steps[0]?.isError).toBe(true);
    expect(result.trace.steps[0]?.observation).toMatch(text);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('a worker that completes a call twice gives the run its first result; the server refuses the second', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'misbehaving', args: { how: 'complete twice' } }] },
      { answer: 'Done.' },
    ]);
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ observation: 'first completion', isError: false });
    await expect.poll(() => secondCompletion).toBeDefined();
    expect(String(secondCompletion)).toMatch(/not found|already completed/i);
  });

  it('a tool whose task queue nobody polls is a clear observation after its schedule-to-start timeout', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'ghost_tool', args: {} }] },
      { answer: 'The ghost tool is not available.' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('The ghost tool is not available.');
    expect(result.trace.steps[0]).toMatchObject({
      isError: true,
      observation: `[error] ghost_tool({}): no worker is polling task queue "${nobodyQueue}" for tool ghost_tool (waited 2s)`,
    });
  });

  it('arguments that do not fit the JSON Schema are an observation, and the other worker never sees them', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'stock_level', args: { sku: 7 } }] },
      { answer: 'I could not look the stock up.' },
    ]);
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(true);
    expect(result.trace.steps[0]?.observation).toMatch(/^\[error\] stock_level\(\{"sku":7\}\): invalid arguments/);
    expect(receivedBy('StockLevel').filter((input) => input.idempotencyKey.startsWith(run.firstRunId))).toEqual([]);
  });

  it('replay-check serves a remote run from its recording and never calls the other worker', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'stock_level', args: { sku: 'B2' } }] },
      { thought, toolCalls: [{ name: 'ghost_tool', args: {} }] },
      { answer: 'B2 is in stock; the ghost tool is not available.' },
    ]);
    await run.result();
    const calls = receivedBy('StockLevel').length;
    // A registry holding the remote declarations, as a worker's would: the replay must not schedule them for real.
    const registry = new ToolRegistry(parseRemoteTools(remoteTools));
    const sources = await loadSources([run.workflowId], { client: harness.client, baselineDir: os.tmpdir() });
    const [report] = await checkRecordings(sources, {
      client: harness.client,
      connection: connection!,
      registry,
      workflowBundle: { codePath: inject('workflowBundlePath') },
    });
    expect([report?.status, report?.changes, report?.notes]).toEqual(['unchanged', [], []]);
    expect(receivedBy('StockLevel')).toHaveLength(calls);
  }, 60_000);
});
