import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from '../common/env';
import { createTracing } from './tracing';
import { createAgentWorker, prebuiltWorkflowBundle } from './create-worker';
import { InvalidEnvironmentError, readWorkerEnv, type WorkerEnv } from './env';
import { createDefaultRegistry } from './plugin';
import { loadToolsModule } from './tools/tools-module';
import type { ToolRegistry } from './tools/registry';
import { errorMessage } from '../shared/errors';

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(colon + 1)) };
}

/**
 * GET /healthz: 200 while the worker polls, 503 while it starts or drains (so orchestrators stop routing to it). It
 * listens before the worker exists, so a busy or invalid port is one clear error before anything else starts.
 */
async function startHealthServer(address: string, worker: () => Worker | undefined): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url !== '/healthz') {
      response.writeHead(404).end();
      return;
    }
    const state = worker()?.getState() ?? 'INITIALIZED';
    response.writeHead(state === 'RUNNING' ? 200 : 503, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: state === 'RUNNING' ? 'ok' : 'unavailable', worker: state }));
  });
  const { host, port } = splitAddress(address);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve)).catch(
    (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'the address is in use' : error.message;
      throw new InvalidEnvironmentError(`Invalid worker environment: WORKER_HEALTH_ADDRESS ${address}: ${why}`);
    },
  );
  return server;
}

/**
 * The built-in tools and those of the user's module. A module that cannot be loaded (or takes too long to), exports
 * no tools, holds an entry that is not a usable tool, or names a tool twice is one line and exit code 2, before the
 * worker connects.
 */
async function registryWithModule(toolsRoot: string | undefined, file: string): Promise<ToolRegistry> {
  let tools;
  try {
    tools = await loadToolsModule(path.resolve(file));
  } catch (error) {
    const reason = errorMessage(error).split('\n')[0];
    throw new InvalidEnvironmentError(`Invalid worker environment: WORKER_TOOLS_MODULE ${file}: ${reason}`);
  }
  const registry = createDefaultRegistry(toolsRoot);
  try {
    for (const tool of tools) registry.register(tool);
  } catch (error) {
    throw new InvalidEnvironmentError(
      `Invalid worker environment: WORKER_TOOLS_MODULE ${file}: ${(error as Error).message}`,
    );
  }
  return registry;
}

/**
 * `durable-react-agent worker`: a worker against TEMPORAL_ADDRESS until SIGINT/SIGTERM, with optional Prometheus
 * metrics and a health endpoint. On a signal it stops polling, lets in-flight activities finish for up to
 * WORKER_SHUTDOWN_GRACE, then cancels them; Temporal retries what was cut short on another worker.
 */
export async function runWorkerProcess(
  env: RuntimeEnv = readEnv(),
  workerEnv: WorkerEnv = readWorkerEnv(),
): Promise<void> {
  Runtime.install({
    logger: new DefaultLogger(workerEnv.logLevel),
    ...(workerEnv.metricsAddress
      ? { telemetryOptions: { metrics: { prometheus: { bindAddress: workerEnv.metricsAddress } } } }
      : {}),
  });
  const address = env.temporalAddress ?? LOCAL_TEMPORAL_ADDRESS;
  let worker: Worker | undefined;
  const health = workerEnv.healthAddress ? await startHealthServer(workerEnv.healthAddress, () => worker) : undefined;
  const registry = workerEnv.toolsModule
    ? await registryWithModule(workerEnv.toolsRoot, workerEnv.toolsModule).catch((error: unknown) => {
        health?.close();
        throw error;
      })
    : undefined;
  const connection = await NativeConnection.connect({ address }).catch((error: unknown) => {
    health?.close();
    throw error;
  });
  const tracing = workerEnv.otlpEndpoint ? createTracing(workerEnv.otlpEndpoint) : undefined;
  try {
    // Tracing and encryption put code into the workflow bundle, so those workers bundle at start.
    const bundle = tracing || env.payloadEncryptionKeys ? undefined : prebuiltWorkflowBundle();
    worker = await createAgentWorker({
      connection,
      env,
      toolsRoot: workerEnv.toolsRoot,
      ...(registry ? { registry } : {}),
      ...(workerEnv.mcpServers ? { mcpServers: workerEnv.mcpServers } : {}),
      ...(workerEnv.remoteTools ? { remoteTools: workerEnv.remoteTools } : {}),
      ...(bundle ? { workflowBundle: bundle } : {}),
      modelCalls: workerEnv.modelCalls,
      ...(workerEnv.runAhead !== undefined ? { runAhead: workerEnv.runAhead } : {}),
      ...(workerEnv.approvalKeys ? { approvalKeys: workerEnv.approvalKeys } : {}),
      ...(workerEnv.prices ? { prices: workerEnv.prices } : {}),
      workerOptions: {
        shutdownGraceTime: workerEnv.shutdownGraceMs,
        ...(workerEnv.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: workerEnv.maxCachedWorkflows } : {}),
        ...(tracing ? { plugins: [tracing.plugin] } : {}),
      },
    });
    console.error(
      `worker polling task queue "${env.taskQueue}" on ${address} (namespace ${env.temporalNamespace})` +
        `${workerEnv.metricsAddress ? `, metrics on http://${workerEnv.metricsAddress}/metrics` : ''}` +
        `${workerEnv.healthAddress ? `, health on http://${workerEnv.healthAddress}/healthz` : ''}` +
        `${tracing ? `, traces to ${workerEnv.otlpEndpoint}` : ''}`,
    );
    await worker.run(); // the runtime turns SIGINT/SIGTERM into a graceful shutdown
  } finally {
    health?.close();
    await tracing?.shutdown(); // flushes the spans still batched
    await connection.close();
  }
}
