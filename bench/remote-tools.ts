/**
 * What a remote tool (an activity of another worker, on its own task queue) costs per call next to a TypeScript tool
 * in the agent's worker: `npx tsx bench/remote-tools.ts [--runs 5] [--steps 20]`. Every variant runs the same script
 * (one no-op tool call per step, the scripted model answering at once) on its own dev server; the table gives the
 * median time per step and the history events per step. A benchmark, not a test: it asserts nothing about time.
 *
 * The Go row starts the Go SDK tool worker of the cross-language tests (polyglot/go, built and cached as `npm test`
 * builds it). A worker of another language is measured too when it is already running and polling a queue of the same dev
 * server: `--address host:port --queue <taskQueue> --activity <activityType>` (the tool must answer any arguments).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, DefaultLogger, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { AgentClient } from '../src/client/agent-client';
import { startDevServer } from '../src/dev/dev-server';
import { resolvePolyglotPrograms } from '../src/dev/go-polyglot';
import { ensureSearchAttributes } from '../src/dev/search-attributes';
import { freePort } from '../src/testing/free-port';
import { startScriptedModel, type ScriptedTurn } from '../src/testing/scripted-model';
import { createAgentWorker, createOpenAIClient, prebuiltWorkflowBundle } from '../src/worker';
import { defineTool } from '../src/worker/tools/define-tool';
import { ToolRegistry } from '../src/worker/tools/registry';
import type { RemoteToolConfig } from '../src/worker/tools/remote-tools';

const argument = (name: string): string | undefined => {
  const index = process.argv.indexOf(name);
  return index > 0 ? process.argv[index + 1] : undefined;
};
const RUNS = Number(argument('--runs') ?? 5);
const STEPS = Number(argument('--steps') ?? 20);
const external = argument('--queue') && argument('--activity');

const parameters = { type: 'object', properties: { step: { type: 'integer' } } };
const noop = (name: string, local: boolean) =>
  defineTool({
    name,
    description: 'Does nothing and answers "ok".',
    schema: z.object({ step: z.number().int() }),
    local,
    handler: () => 'ok',
  });

/** The Go tool worker's tool (polyglot/go/cmd/tool-worker) takes a transfer; the others take a step number. */
const GO_TOOL = 'transfer_go_worker';
const goParameters = {
  type: 'object',
  properties: { amount: { type: 'number' }, to: { type: 'string' } },
  required: ['amount', 'to'],
};

function script(tool: string): ScriptedTurn[] {
  const turns: ScriptedTurn[] = [];
  for (let step = 1; step <= STEPS; step++) {
    const args = tool === GO_TOOL ? { amount: step, to: 'acct-bench' } : { step };
    turns.push({ thought: `Step ${step}: call the tool once more.`, toolCalls: [{ name: tool, args }] });
  }
  turns.push({ answer: `Finished ${STEPS} steps.` });
  return turns;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Starts the Go SDK tool worker (built and cached as `npm test` builds it) on `taskQueue`, once it polls. */
async function startGoToolWorker(address: string, taskQueue: string, ledgerDir: string): Promise<ChildProcess> {
  const { toolWorker } = await resolvePolyglotPrograms();
  const child = spawn(toolWorker, ['-task-queue', taskQueue, '-ledger', path.join(ledgerDir, 'ledger.jsonl')], {
    env: { ...process.env, TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<void>((resolve) => lines.on('line', (line) => line.trim() === 'ready' && resolve()));
  await Promise.race([
    ready,
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`the Go tool worker exited (${String(code)})`))),
  ]);
  return child;
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const server = external
    ? undefined
    : await startDevServer({ port: await freePort(), uiPort: await freePort(), namespace: 'default' });
  const address = argument('--address') ?? server?.address ?? 'localhost:7233';
  await ensureSearchAttributes(address, 'default');
  const model = await startScriptedModel();
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  const remoteQueue = `bench-remote-${randomUUID()}`;
  const goQueue = `bench-go-${randomUUID()}`;
  const ledgerDir = mkdtempSync(path.join(tmpdir(), 'bench-go-ledger-'));
  const goWorker = await startGoToolWorker(address, goQueue, ledgerDir);
  const remoteTools: RemoteToolConfig[] = [
    {
      name: 'noop_other_worker',
      description: 'Does nothing.',
      parameters,
      taskQueue: remoteQueue,
      activityType: 'Noop',
    },
    {
      name: GO_TOOL,
      description: 'Transfers an amount (the Go SDK worker).',
      parameters: goParameters,
      taskQueue: goQueue,
      activityType: 'ledger_transfer',
    },
    ...(external
      ? [
          {
            name: 'noop_external',
            description: 'Does nothing.',
            parameters,
            taskQueue: argument('--queue')!,
            activityType: argument('--activity')!,
          },
        ]
      : []),
  ];
  const taskQueue = `bench-agent-${randomUUID()}`;
  const bundle = prebuiltWorkflowBundle();
  const agentWorker = await createAgentWorker({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    registry: new ToolRegistry([noop('noop_local', true), noop('noop_activity', false)]),
    remoteTools,
    openai: createOpenAIClient({ apiKey: 'bench', baseURL: model.baseURL }),
    defaultModel: 'unscripted',
    runAhead: false,
    ...(bundle ? { workflowBundle: bundle } : {}),
  });
  const toolWorker = await Worker.create({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue: remoteQueue,
    activities: { Noop: async () => 'ok' },
  });
  const running = [agentWorker.run(), toolWorker.run()];
  const agents = new AgentClient({ client, taskQueue });
  const variants: [string, string][] = [
    ['TS tool, local activity of the agent worker', 'noop_local'],
    ['TS tool, activity of the agent worker (local: false)', 'noop_activity'],
    ['remote tool, TS worker on its own queue', 'noop_other_worker'],
    ['remote tool, Go SDK worker on its own queue', GO_TOOL],
    ...(external
      ? [[`remote tool, ${argument('--activity')} on ${argument('--queue')}`, 'noop_external'] as [string, string]]
      : []),
  ];
  const rows = [];
  try {
    for (const [label, tool] of variants) {
      const perStep: number[] = [];
      let events = 0;
      for (let run = 0; run <= RUNS; run++) {
        const modelName = `bench-${tool}-${randomUUID()}`;
        model.script(modelName, script(tool));
        const started = performance.now();
        const handle = await agents.start('Call the tool until you are done.', {
          model: modelName,
          tools: [tool],
          limits: { maxIterations: STEPS + 1 },
        });
        const result = await handle.result();
        const elapsed = performance.now() - started;
        if (result.terminationReason !== 'success' || result.trace.steps.some((step) => step.isError)) {
          throw new Error(`${label}: the run did not finish its script (${result.terminationReason})`);
        }
        if (run === 0) continue; // warm-up: bundles, caches, the first poll
        perStep.push(elapsed / STEPS);
        events = (await client.workflow.getHandle(handle.workflowId).fetchHistory()).events?.length ?? 0;
      }
      rows.push({
        variant: label,
        'ms per step (median)': median(perStep).toFixed(1),
        'history events per step': (events / STEPS).toFixed(1),
      });
    }
    const base = Number(rows[0]?.['ms per step (median)']);
    console.table(
      rows.map((row) => ({ ...row, 'vs local TS tool (ms)': (Number(row['ms per step (median)']) - base).toFixed(1) })),
    );
    console.log(`${RUNS} runs × ${STEPS} steps per variant (after one warm-up run), dev server on ${address}`);
  } finally {
    agentWorker.shutdown();
    toolWorker.shutdown();
    goWorker.kill('SIGTERM');
    await Promise.all(running);
    rmSync(ledgerDir, { recursive: true, force: true });
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server?.stop();
  }
}

void main();
