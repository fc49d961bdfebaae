import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import { AgentClient, type AgentRunHandle } from '../../src/client/agent-client';
import type { AgentConfig } from '../../src/shared/agent-config';
import {
  startScriptedModel,
  type ScriptedModelServer,
  type ScriptedResponder,
  type ScriptedTurn,
} from '../../src/testing/scripted-model';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import type { AnyToolDefinition } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';
import type { McpServersConfig } from '../../src/worker/mcp/config';
import { createAgentWorker, createOpenAIClient, type AgentWorkerOptions } from '../../src/worker';
import { createTestTools, firstRunIdOf } from './test-tools';

/** A real worker on its own task queue, the scripted model, and an AgentClient, against the suite's dev server. */
/** The identity the harness's client decides as. */
export const TEST_REVIEWER = 'test-reviewer';

export interface Harness {
  model: ScriptedModelServer;
  agents: AgentClient;
  client: Client;
  /**
   * Shuts the worker down and starts a new one on the same task queue (a deploy, from the run's view); `meanwhile`
   * runs while no worker is polling.
   */
  restartWorker(meanwhile?: () => Promise<void>): Promise<void>;
  /** Scripts a fresh model name and starts a run that uses it. */
  start(turns: readonly ScriptedTurn[] | ScriptedResponder, query?: string, config?: AgentConfig): Promise<Run>;
  close(): Promise<void>;
}

/** A started run, the name of the scripted model it talks to, and the first run ID its tool calls' keys start with. */
export interface Run extends AgentRunHandle {
  modelName: string;
  firstRunId: string;
}

/** Options of a harness: where file tools are confined, the model client's timeout, and extra tools to register. */
export interface HarnessOptions {
  toolsRoot?: string;
  modelTimeoutMs?: number;
  tools?: AnyToolDefinition[];
  /** Payload codec for the worker and the client (e.g. encryption); the worker then bundles its own workflow code. */
  dataConverter?: DataConverter;
  /** MCP servers whose tools the worker offers. */
  mcpServers?: McpServersConfig;
  /** Tools that run in other workers (the plugin's `remoteTools`). */
  remoteTools?: AgentWorkerOptions['remoteTools'];
  /** The worker's prompt cache (0: every model call after a run's first rebuilds its prompt by query). */
  promptCacheChars?: number;
  /** The worker's model-call tuning (the plugin's `modelCalls`), recorded with every run it starts. */
  modelCalls?: AgentWorkerOptions['modelCalls'];
  /** The worker's run-ahead setting (the plugin's `runAhead`). */
  runAhead?: boolean;
  /** The keys the worker verifies signed decisions with (the plugin's `approvalKeys`). */
  approvalKeys?: AgentWorkerOptions['approvalKeys'];
  /** The worker's model prices (the plugin's `prices`); runs use `scenario-<uuid>` model names. */
  prices?: AgentWorkerOptions['prices'];
}

/** Builds a harness; call `close()` in afterAll. */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const address = inject('temporalAddress');
  const namespace = inject('temporalNamespace');
  const model = await startScriptedModel();
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  const client = new Client({
    connection,
    namespace,
    ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
  });
  const taskQueue = `test-${randomUUID()}`;
  const registry = new ToolRegistry([
    ...createBuiltinTools({ root: options.toolsRoot ?? process.cwd() }),
    ...createTestTools(),
    ...(options.tools ?? []),
  ]);
  const startWorker = async (): Promise<{ worker: Worker; running: Promise<void> }> => {
    const worker = await createAgentWorker({
      connection: nativeConnection,
      namespace,
      taskQueue,
      registry,
      // The registry's file tools have it already; the worker also offers it to MCP servers as their root.
      ...(options.toolsRoot ? { toolsRoot: options.toolsRoot } : {}),
      openai: createOpenAIClient({ apiKey: 'test-key', baseURL: model.baseURL, timeoutMs: options.modelTimeoutMs }),
      defaultModel: 'unscripted',
      ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
      ...(options.remoteTools ? { remoteTools: options.remoteTools } : {}),
      ...(options.promptCacheChars !== undefined ? { promptCacheChars: options.promptCacheChars } : {}),
      ...(options.modelCalls ? { modelCalls: options.modelCalls } : {}),
      ...(options.runAhead !== undefined ? { runAhead: options.runAhead } : {}),
      ...(options.approvalKeys ? { approvalKeys: options.approvalKeys } : {}),
      ...(options.prices ? { prices: options.prices } : {}),
      // The prebuilt bundle has the default failure converter: a codec's own must be bundled in.
      ...(options.dataConverter
        ? { dataConverter: options.dataConverter }
        : { workflowBundle: { codePath: inject('workflowBundlePath') } }),
    });
    return { worker, running: worker.run() };
  };
  let current = await startWorker();
  const stopWorker = async () => {
    current.worker.shutdown();
    await current.running;
  };
  // A named reviewer, so tests can assert who a decision says it came from.
  const agents = new AgentClient({ client, taskQueue, identity: TEST_REVIEWER });
  return {
    model,
    agents,
    client,
    async restartWorker(meanwhile) {
      await stopWorker();
      try {
        await meanwhile?.();
      } finally {
        // A failing `meanwhile` must still leave a worker for the next tests and for close().
        current = await startWorker();
      }
    },
    async start(turns, query = 'test query', config = {}) {
      const modelName = `scenario-${randomUUID()}`;
      model.script(modelName, turns);
      const handle = await agents.start(query, { ...config, model: modelName });
      return { ...handle, modelName, firstRunId: await firstRunIdOf(client, handle.workflowId) };
    },
    async close() {
      await endRunsLeftRunning(client, taskQueue);
      await stopWorker();
      await nativeConnection.close();
      await connection.close();
      await model.close();
    },
  };
}

/**
 * Terminates this harness's runs that a test left running (usually waiting on a decision). Every file shares one
 * namespace, and a listing of what waits asks each waiting run: runs whose worker had closed with their file made every
 * later listing wait out one query timeout per such run, and a suite's worth of them outlasted a test's timeout.
 */
async function endRunsLeftRunning(client: Client, taskQueue: string): Promise<void> {
  const ids: string[] = [];
  for await (const execution of client.workflow.list({
    query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'`,
  }))
    ids.push(execution.workflowId);
  // A run may end (or its parent end it) between the listing and the call: that is what was wanted.
  const terminate = (id: string) =>
    client.workflow
      .getHandle(id)
      .terminate('test file finished')
      .catch(() => undefined);
  for (let start = 0; start < ids.length; start += 20) await Promise.all(ids.slice(start, start + 20).map(terminate));
}

/**
 * Registers beforeAll/afterAll hooks that create and close a harness for the calling test file, and returns a view
 * of it that is usable inside the tests.
 */
export function useHarness(options: HarnessOptions = {}): Omit<Harness, 'close'> {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await createHarness(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  const ready = (): Harness => {
    if (!harness) throw new Error('the harness is only available inside tests');
    return harness;
  };
  return {
    get model() {
      return ready().model;
    },
    get agents() {
      return ready().agents;
    },
    get client() {
      return ready().client;
    },
    start: (...args) => ready().start(...args),
    restartWorker: (meanwhile) => ready().restartWorker(meanwhile),
  };
}

export { waitForPending } from './pending';
