import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { createAgentWorker, createOpenAIClient } from '../../src/worker';

const root = mkdtempSync(path.join(os.tmpdir(), 'dra-guarded-'));
mkdirSync(path.join(root, 'notes'));
writeFileSync(path.join(root, '.env'), 'API_KEY=super-secret');
writeFileSync(path.join(root, 'notes', 'today.txt'), 'Customer called about TICKET-4711 again.');

let model: ScriptedModelServer;
let worker: Worker;
let running: Promise<void>;
let agents: AgentClient;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  model = await startScriptedModel();
  const address = inject('temporalAddress');
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  // The user's workflow file is bundled as a user's worker would bundle it.
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.resolve(__dirname, '../../examples/guarded-workflow/workflows.ts'),
    logger: new DefaultLogger('WARN'),
    // The example imports 'durable-react-agent/workflow' as a user's code does; here that name means the sources.
    webpackConfigHook: (config) => ({
      ...config,
      resolve: {
        ...config.resolve,
        alias: {
          ...config.resolve?.alias,
          'durable-react-agent/workflow': path.resolve(__dirname, '../../src/workflow/index.ts'),
        },
      },
    }),
  });
  const taskQueue = `guarded-${randomUUID()}`;
  worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue,
    toolsRoot: root,
    openai: createOpenAIClient({ baseURL: model.baseURL }),
    workflowBundle: { code },
  });
  running = worker.run();
  agents = new AgentClient({ client: new Client({ connection }), taskQueue });
  closers.push(
    () => nativeConnection.close(),
    () => connection.close(),
    () => model.close(),
  );
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  for (const close of closers) await close();
});

describe('the loop inside a user workflow, with hooks', () => {
  it('beforeToolCall refuses a secrets file with a message; shouldStop ends the run when the ticket shows up', async () => {
    model.script('guarded', [
      {
        thought: 'Configuration files sometimes mention ticket numbers, so I try .env first.',
        toolCalls: [{ name: 'read_file', args: { path: '.env' } }],
      },
      {
        thought: "That file is off limits; today's notes are the next best source.",
        toolCalls: [{ name: 'read_file', args: { path: 'notes/today.txt' } }],
      },
      { answer: 'The ticket is TICKET-4711.' },
    ]);
    const run = await agents.start(
      'Which ticket did the customer call about?',
      { model: 'guarded' },
      { workflowType: 'guardedAgentWorkflow' },
    );
    const result = await run.result();
    const [refused, found] = result.trace.steps;
    expect(refused?.observation).toBe(
      '[error] read_file({"path":".env"}): refused before running: .env holds secrets and may not be read by an agent',
    );
    expect(refused?.observation).not.toContain('super-secret');
    expect(found?.observation).toContain('TICKET-4711');
    expect(result.terminationReason).toBe('custom');
    expect(result.trace.terminationDetail).toBe('found the ticket number');
    expect(result.finalAnswer).toBe('The ticket is TICKET-4711.'); // the forced final answer after the custom stop
  });

  it('the stock workflow still runs on the same worker (subagents need it)', async () => {
    model.script('stock', [{ answer: 'plain' }]);
    const result = await (await agents.start('q', { model: 'stock' })).result();
    expect(result.finalAnswer).toBe('plain');
  });
});
