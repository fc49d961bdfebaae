import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient } from '../client/agent-client';
import { startDevServer, type DevServer } from '../dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../shared/search-attributes';
import { startScriptedModel, type ScriptedModelServer } from './scripted-model';
import type { ToolRegistry } from '../worker/tools/registry';
import { createAgentWorker, createOpenAIClient } from '../worker/index';
import { freePort } from './free-port';
import { stockBundleOptions } from '../worker/workflow-bundle';

/** A whole local system for scripts (no vitest): dev server on free ports, scripted model, worker and clients. */
export interface LocalStack {
  server: DevServer;
  model: ScriptedModelServer;
  client: Client;
  agents: AgentClient;
  close(): Promise<void>;
}

/** Starts the stack with one worker on `taskQueue` (default tools unless `registry` is given). */
export async function startLocalStack(options: { taskQueue: string; registry?: ToolRegistry }): Promise<LocalStack> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({
    port: await freePort(),
    uiPort: await freePort(),
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
  });
  const model = await startScriptedModel();
  const { code } = await bundleWorkflowCode({
    ...stockBundleOptions(),
    logger: new DefaultLogger('WARN'),
  });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue: options.taskQueue,
    ...(options.registry ? { registry: options.registry } : {}),
    openai: createOpenAIClient({ baseURL: model.baseURL }),
    workflowBundle: { code },
  });
  const running = worker.run();
  const client = new Client({ connection });
  return {
    server,
    model,
    client,
    agents: new AgentClient({ client, taskQueue: options.taskQueue }),
    async close() {
      worker.shutdown();
      await running;
      await nativeConnection.close();
      await connection.close();
      await model.close();
      await server.stop();
    },
  };
}
