import { createServer, type Server } from 'node:http';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from '../client/env';
import { createTracing } from './tracing';
import { createAgentWorker, prebuiltWorkflowBundle } from './create-worker';
import { readWorkerEnv, type WorkerEnv } from './env';

function splitAddress(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port: Number(address.slice(colon + 1)) };
}

/** GET /healthz: 200 while the worker polls, 503 while it starts or drains (so orchestrators stop routing to it). */
async function startHealthServer(address: string, worker: Worker): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.url !== '/healthz') {
      response.writeHead(404).end();
      return;
    }
    const state = worker.getState();
    response.writeHead(state === 'RUNNING' ? 200 : 503, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ status: state === 'RUNNING' ? 'ok' : 'unavailable', worker: state }));
  });
  const { host, port } = splitAddress(address);
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
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
  const connection = await NativeConnection.connect({ address });
  const tracing = workerEnv.otlpEndpoint ? createTracing(workerEnv.otlpEndpoint) : undefined;
  let health: Server | undefined;
  try {
    // Tracing and encryption put code into the workflow bundle, so those workers bundle at start.
    const bundle = tracing || env.payloadEncryptionKeys ? undefined : prebuiltWorkflowBundle();
    const worker = await createAgentWorker({
      connection,
      env,
      toolsRoot: workerEnv.toolsRoot,
      ...(bundle ? { workflowBundle: bundle } : {}),
      workerOptions: {
        shutdownGraceTime: workerEnv.shutdownGraceMs,
        ...(tracing ? { plugins: [tracing.plugin] } : {}),
      },
    });
    if (workerEnv.healthAddress) health = await startHealthServer(workerEnv.healthAddress, worker);
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
