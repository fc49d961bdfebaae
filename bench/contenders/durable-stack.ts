/**
 * The durable-react-agent contender's system: the embedded dev server persisting to a SQLite file (durable, like
 * LangGraph's SQLite checkpointer), one worker process, and a client. The worker's memory is read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { build } from 'esbuild';
import { AgentClient } from '../../src/client/agent-client';
import { startDevServer, type DevServer } from '../../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';
import type { ReActResult } from '../../src/shared/types';
import type { WorkerJob } from './durable-worker';

export interface DurableStack {
  server: DevServer;
  client: Client;
  agents: AgentClient;
  taskQueue: string;
  /** The worker process's resident memory now and at its peak, in MiB (Linux /proc). */
  workerMemory(): Promise<{ rssMiB: number; peakMiB: number }>;
  close(): Promise<void>;
}

export async function startDurableStack(options: {
  baseURL: string;
  maxCachedWorkflows: number;
  workload?: WorkerJob['workload'];
  /** Node options of the worker process (`--worker-node-options`), e.g. a smaller young generation for P5. */
  nodeOptions?: string;
  /** Where the worker makes its runs' model calls (worker tuning, not a run's choice). */
  modelCalls?: WorkerJob['modelCalls'];
}): Promise<DurableStack> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dra-bench-'));
  const server = await startDevServer({
    dbFile: path.join(dir, 'temporal.db'),
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
  });
  const taskQueue = 'bench';
  const job: WorkerJob = {
    address: server.address,
    taskQueue,
    baseURL: options.baseURL,
    maxCachedWorkflows: options.maxCachedWorkflows,
    workload: options.workload,
    modelCalls: options.modelCalls,
    workflowBundlePath: path.join(REPO, 'dist', 'workflow-bundle.js'),
    floorWorkflowPath: path.join(__dirname, 'sdk-floor-workflow.ts'),
  };
  const worker = await startWorker(job, options.nodeOptions);
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection });
  return {
    server,
    client,
    agents: new AgentClient({ client, taskQueue }),
    taskQueue,
    workerMemory: () => processMemory(worker.pid ?? 0),
    async close() {
      await connection.close();
      await stopWorker(worker);
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

const REPO = path.resolve(__dirname, '..', '..');

/**
 * durable-worker.ts compiled to one JavaScript file (packages stay in node_modules), as a deployed worker runs: under
 * a TypeScript loader the same worker idled at about 370 MiB instead of about 200.
 */
async function compiledWorker(): Promise<string> {
  // Three levels under the repo, as the sources it bundles are: src/worker/mcp reads the package's version from
  // `../../../package.json` relative to its own directory, which a bundle one level shallower could not find.
  const outfile = path.join(REPO, 'bench', '.build', 'worker', 'durable-worker.cjs');
  await build({
    entryPoints: [path.join(__dirname, 'durable-worker.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

async function startWorker(job: WorkerJob, nodeOptions = ''): Promise<ChildProcess> {
  // As NODE_OPTIONS, the way a deployment sets them; the bench's own options are not the worker's.
  const child = spawn(process.execPath, [await compiledWorker(), JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: nodeOptions },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bench worker exited with ${code} before it was ready`)));
    child.stdout?.once('data', () => resolve(child));
  });
}

async function stopWorker(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function processMemory(pid: number): Promise<{ rssMiB: number; peakMiB: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
}

/** Waits for a run's answer; throws unless it finished its script, so a broken run never counts as a fast one. */
export async function succeeded(stack: DurableStack, workflowId: string): Promise<ReActResult> {
  const result = (await stack.client.workflow.getHandle(workflowId).result()) as ReActResult;
  if (result.terminationReason !== 'success') throw new Error(`${workflowId} ended with ${result.terminationReason}`);
  return result;
}
