import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import OpenAI from 'openai';
import type { DataConverter } from '@temporalio/common';
import { createActivities } from './activities';
import { dataConverterFromEnv } from './codec';
import { DEFAULT_OPENAI_BASE_URL, readEnv, type RuntimeEnv } from './env';
import { createBuiltinTools } from './tools/builtin';
import { ToolRegistry } from './tools/registry';

/**
 * The openai client's own timeout: below the model activity's 90 s start-to-close timeout so a hung request fails
 * as a retryable timeout inside the attempt. `maxRetries: 0` because Temporal owns retries.
 */
export const OPENAI_REQUEST_TIMEOUT_MS = 60_000;

/** Creates the openai client the model activity uses. */
export function createOpenAIClient(options: { apiKey?: string; baseURL?: string; timeoutMs?: number }): OpenAI {
  return new OpenAI({
    // Local OpenAI-compatible servers often need no key, but the client insists on one.
    apiKey: options.apiKey ?? 'not-needed',
    baseURL: options.baseURL ?? DEFAULT_OPENAI_BASE_URL,
    maxRetries: 0,
    timeout: options.timeoutMs ?? OPENAI_REQUEST_TIMEOUT_MS,
  });
}

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
  /** A prebuilt workflow bundle (tests build one once); by default dist/workflow-bundle.js, else bundled at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Extra Temporal worker options (tuning, interceptors). */
  workerOptions?: Partial<WorkerOptions>;
  /** Payload encryption etc.; by default from PAYLOAD_ENCRYPTION_KEYS. Clients must use the same. */
  dataConverter?: DataConverter;
  env?: RuntimeEnv;
}

/** The default registry: every built-in tool, file tools confined to `root`. */
export function createDefaultRegistry(root: string = process.cwd()): ToolRegistry {
  return new ToolRegistry(createBuiltinTools({ root }));
}

/**
 * Where the worker's workflow code comes from. `npm run build` leaves a prebuilt bundle beside the compiled worker;
 * from sources, webpack bundles at start. So does a worker whose plugins, workflow interceptors (tracing) or
 * converters (encryption) must be compiled into the bundle, which the prebuilt one does not contain.
 */
export function workflowSource(
  options: Pick<AgentWorkerOptions, 'workflowBundle' | 'workerOptions'>,
  dataConverter: DataConverter | undefined,
  dir: string,
): Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> {
  if (options.workflowBundle) return { workflowBundle: options.workflowBundle };
  // The caller's own workflows (through workerOptions) replace the stock ones: set nothing that would compete.
  if (options.workerOptions?.workflowsPath || options.workerOptions?.workflowBundle) return {};
  const prebuilt = path.join(dir, 'workflow-bundle.js');
  const extraWorkflowCode = Boolean(
    options.workerOptions?.plugins?.length ||
      options.workerOptions?.interceptors?.workflowModules?.length ||
      options.workerOptions?.bundlerOptions ||
      dataConverter?.failureConverterPath ||
      dataConverter?.payloadConverterPath,
  );
  return existsSync(prebuilt) && !extraWorkflowCode ? { workflowBundle: { codePath: prebuilt } } : { workflowsPath: path.join(dir, 'workflows') };
}

/** Builds a Worker running the agent workflow and its activities. */
export async function createAgentWorker(options: AgentWorkerOptions): Promise<Worker> {
  const env = options.env ?? readEnv();
  const openai = options.openai ?? createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL });
  const registry = options.registry ?? createDefaultRegistry(options.toolsRoot);
  const dataConverter = options.dataConverter ?? dataConverterFromEnv(env);
  const workflows = workflowSource(options, dataConverter, __dirname);
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? env.temporalNamespace,
    taskQueue: options.taskQueue ?? env.taskQueue,
    activities: createActivities({ openai, registry, defaultModel: options.defaultModel ?? env.openaiModel }),
    dataConverter,
    ...workflows,
    ...options.workerOptions,
  });
}
