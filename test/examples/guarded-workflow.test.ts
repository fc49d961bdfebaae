import { randomUUID } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import type { ReActResult } from '../../src/shared/types';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { createAgentWorker, createOpenAIClient } from '../../src/worker';
import { checkPolicy } from '../../examples/guarded-workflow/activities';

const root = mkdtempSync(path.join(os.tmpdir(), 'dra-guarded-'));
mkdirSync(path.join(root, 'notes'));
writeFileSync(path.join(root, '.env'), 'API_KEY=super-secret');
writeFileSync(path.join(root, 'notes', 'today.txt'), 'Customer called about TICKET-4711 again.');
writeFileSync(path.join(root, 'notes', 'private.txt'), 'Salary review: confidential.');

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
    // The example's own activity, which its policy hook awaits.
    workerOptions: { activities: { checkPolicy } },
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

  it('beforeToolCall may await an activity: a policy service refuses the call, recorded in the history', async () => {
    model.script('policy', [
      {
        thought: 'The review notes may hold the answer, so I read the private file.',
        toolCalls: [{ name: 'read_file', args: { path: 'notes/private.txt' } }],
      },
      {
        thought: "That file is refused; today's notes are allowed.",
        toolCalls: [{ name: 'read_file', args: { path: 'notes/today.txt' } }],
      },
      { answer: 'TICKET-4711.' },
    ]);
    const run = await agents.start(
      'Which ticket?',
      { model: 'policy' },
      { workflowType: 'policyCheckedAgentWorkflow' },
    );
    const result = await run.result();
    const [refused, read] = result.trace.steps;
    expect(refused?.observation).toBe(
      '[error] read_file({"path":"notes/private.txt"}): refused before running: policy: private notes are off limits',
    );
    expect(read?.observation).toContain('TICKET-4711');
    const history = await agents.client.workflow.getHandle(run.workflowId).fetchHistory();
    const checks = (history.events ?? []).filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'checkPolicy',
    );
    expect(checks).toHaveLength(2); // one per call, each in the history
  });

  it("a run's subagents keep its hooks: they run as the same workflow, and the secrets file is refused there too", async () => {
    model.script('delegating', [
      {
        thought: 'A helper can look through the files while I wait.',
        toolCalls: [{ name: 'delegate', args: { agent: 'helper', task: 'Find the API key.' } }],
      },
      // The subagent, on the same scripted model.
      {
        thought: 'API keys live in .env, so I read it.',
        toolCalls: [{ name: 'read_file', args: { path: '.env' } }],
      },
      { answer: 'The key file is off limits.' },
      { answer: 'The helper could not read the key.' },
    ]);
    const run = await agents.start(
      'What is the API key?',
      { model: 'delegating', subagents: { helper: { description: 'reads files' } } },
      { workflowType: 'guardedAgentWorkflow' },
    );
    const result = await run.result();
    const childId = (result.trace.steps[0]?.observationData as { workflowId?: string } | undefined)?.workflowId ?? '';
    const child = agents.client.workflow.getHandle(childId);
    expect((await child.describe()).type).toBe('guardedAgentWorkflow');
    const childResult = (await child.result()) as ReActResult;
    expect(childResult.trace.steps[0]?.observation).toContain('refused before running: .env holds secrets');
    expect(JSON.stringify(childResult)).not.toContain('super-secret');
  });

  it('the stock workflow still runs on the same worker (subagents need it)', async () => {
    model.script('stock', [{ answer: 'plain' }]);
    const result = await (await agents.start('q', { model: 'stock' })).result();
    expect(result.finalAnswer).toBe('plain');
  });
});
