import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type OpenAI from 'openai';
import type { DataConverter } from '@temporalio/common';
import { readEnv, type RuntimeEnv } from '../common/env';
import { dataConverterFromEnv } from '../common/data-converter';
import { createOpenAIClient } from './openai-client';
import { DurableAgentPlugin, type DurableAgentPluginOptions } from './plugin';
import { requestTimeoutMs, runTuningOf } from './model-calls';
import type { McpServersConfig } from './mcp/config';
import type { ToolRegistry } from './tools/registry';

/** What a worker needs; everything but the connection has a default. */
export interface AgentWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  registry?: ToolRegistry;
  openai?: OpenAI;
  /** Model used when a run's config names none. */
  defaultModel?: string;
  /** Folder the file and search tools are confined to (default: the current directory). */
  toolsRoot?: string;
  /** MCP servers whose tools the worker offers (see the plugin option of the same name). */
  mcpServers?: McpServersConfig;
  /** Tools that run in other workers (see the plugin option of the same name). */
  remoteTools?: DurableAgentPluginOptions['remoteTools'];
  /**
   * Where the workflow code comes from: a bundle (see {@link prebuiltWorkflowBundle}), or by default the stock
   * workflows bundled at start. Ignored when `workerOptions` names workflows of its own.
   */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Keep stack traces in the stock workflows (the plugin option of the same name). */
  workflowStackTraces?: boolean;
  /** Characters of prompts kept for model calls' deltas (the plugin option of the same name). */
  promptCacheChars?: number;
  /** How this worker's runs make model calls (the plugin option of the same name). */
  modelCalls?: DurableAgentPluginOptions['modelCalls'];
  /** Whether read-only local tools run inside the model call (the plugin option of the same name). */
  runAhead?: boolean;
  /** Keys signed decisions are verified with (the plugin option of the same name). */
  approvalKeys?: DurableAgentPluginOptions['approvalKeys'];
  /** Model prices for the cost ledger (the plugin option of the same name). */
  prices?: DurableAgentPluginOptions['prices'];
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
  const env = options.env ?? readEnv();
  const timeoutMs = requestTimeoutMs(runTuningOf(options.modelCalls, options.runAhead));
  const timeout = timeoutMs !== undefined ? { timeoutMs } : {};
  const plugin = new DurableAgentPlugin({
    openai: options.openai ?? createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL, ...timeout }),
    defaultModel: options.defaultModel ?? env.openaiModel,
    ...(options.registry ? { tools: options.registry } : {}),
    ...(options.toolsRoot ? { toolsRoot: options.toolsRoot } : {}),
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
    ...(options.remoteTools ? { remoteTools: options.remoteTools } : {}),
    ...(options.workflowStackTraces ? { workflowStackTraces: true } : {}),
    ...(options.promptCacheChars !== undefined ? { promptCacheChars: options.promptCacheChars } : {}),
    ...(options.modelCalls ? { modelCalls: options.modelCalls } : {}),
    ...(options.runAhead !== undefined ? { runAhead: options.runAhead } : {}),
    ...(options.approvalKeys ? { approvalKeys: options.approvalKeys } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
  });
  const { plugins = [], ...workerOptions } = options.workerOptions ?? {};
  const ownWorkflows = workerOptions.workflowsPath !== undefined || workerOptions.workflowBundle !== undefined;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? env.temporalNamespace,
    taskQueue: options.taskQueue ?? env.taskQueue,
    dataConverter: options.dataConverter ?? dataConverterFromEnv(env),
    ...(options.workflowBundle && !ownWorkflows ? { workflowBundle: options.workflowBundle } : {}),
    ...workerOptions,
    plugins: [plugin, ...plugins],
  });
}
