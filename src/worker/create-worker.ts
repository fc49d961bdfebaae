import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { DataConverter } from '@temporalio/common';
import { readEnv, type RuntimeEnv } from '../common/env';
import { dataConverterFromEnv } from '../common/data-converter';
import { createOpenAIClient } from './openai-client';
import { DurableAgentPlugin, type DurableAgentPluginOptions } from './plugin';
import { requestTimeoutMs, runTuningOf } from './model-calls';
import type { ToolRegistry } from './tools/registry';

/**
 * What a worker needs; everything but the connection has a default. The agent's own options are the plugin's, each
 * meaning the same (see {@link DurableAgentPluginOptions}), but its tools come as `registry`.
 */
export interface AgentWorkerOptions extends Omit<DurableAgentPluginOptions, 'tools'> {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  registry?: ToolRegistry;
  /**
   * Where the workflow code comes from: a bundle (see {@link prebuiltWorkflowBundle}), or by default the stock
   * workflows bundled at start. Ignored when `workerOptions` names workflows of its own.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra Temporal worker options (tuning, interceptors, plugins, your own workflows). */
  workerOptions?: Partial<WorkerOptions>;
  /** Payload encryption etc.; by default from PAYLOAD_ENCRYPTION_KEYS. Clients must use the same. */
  dataConverter?: DataConverter;
  env?: RuntimeEnv;
}

/**
 * The bundle `npm run build` leaves in dist/ (the stock workflows, compiled once so a worker skips webpack at
 * start), or undefined when running from sources. Only for workers that add no workflow code of their own: no
 * workflow interceptors (tracing) and no failure or payload converter (encryption) that must be bundled in.
 */
export function prebuiltWorkflowBundle(): { codePath: string } | undefined {
  const codePath = path.join(__dirname, '..', 'workflow-bundle.js');
  return existsSync(codePath) ? { codePath } : undefined;
}

/** Builds a Worker running the agent workflow and its activities: {@link DurableAgentPlugin} on a new worker. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const { connection, namespace, taskQueue, registry, workflowBundle, workerOptions, dataConverter, ...agent } =
    options;
  const { env: given, toolsRoot, ...plugged } = agent;
  const env = given ?? readEnv();
  const timeoutMs = requestTimeoutMs(runTuningOf(agent.modelCalls, agent.runAhead));
  const timeout = timeoutMs !== undefined ? { timeoutMs } : {};
  const plugin = new DurableAgentPlugin({
    ...plugged,
    openai: agent.openai ?? createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL, ...timeout }),
    defaultModel: agent.defaultModel ?? env.openaiModel,
    ...(registry ? { tools: registry } : {}),
    ...(toolsRoot ? { toolsRoot } : {}),
  });
  const { plugins = [], ...extra } = workerOptions ?? {};
  const ownWorkflows = extra.workflowsPath !== undefined || extra.workflowBundle !== undefined;
  return Worker.create({
    connection,
    namespace: namespace ?? env.temporalNamespace,
    taskQueue: taskQueue ?? env.taskQueue,
    dataConverter: dataConverter ?? dataConverterFromEnv(env),
    ...(workflowBundle && !ownWorkflows ? { workflowBundle } : {}),
    ...extra,
    plugins: [plugin, ...plugins],
  });
}
