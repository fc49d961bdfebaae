import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../src/testing/free-port';

/** The built CLI, as users run it. */
export const CLI = path.resolve(__dirname, '../../dist/cli/main.js');
const children: ChildProcess[] = [];

/** A running `durable-react-agent worker` process, as a deployment runs it. */
export interface WorkerProcess {
  child: ChildProcess;
  health: string;
  metrics: string;
  exited: Promise<number | null>;
  stderr(): string;
}

/** Starts the built worker against the suite's server; resolves once its health endpoint says it polls. */
export async function startWorkerProcess(
  taskQueue: string,
  modelBaseURL: string,
  extraEnv: Record<string, string> = {},
): Promise<WorkerProcess> {
  const healthPort = await freePort();
  const metricsPort = await freePort();
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: modelBaseURL,
      WORKER_HEALTH_ADDRESS: `127.0.0.1:${healthPort}`,
      WORKER_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
      WORKER_SHUTDOWN_GRACE: '5s',
      WORKER_LOG_LEVEL: 'WARN',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const health = `http://127.0.0.1:${healthPort}/healthz`;
  for (let attempt = 0; attempt < 300; attempt++) {
    const ok = await fetch(health)
      .then((response) => response.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, health, metrics: `http://127.0.0.1:${metricsPort}/metrics`, exited, stderr: () => stderr };
}

/**
 * Runs `durable-react-agent worker` with `args` from the repository's root until it exits (one refused at its start),
 * against the suite's server; its exit code and stderr. One still running after 45 s is killed (code null): a test of
 * a refusal then fails on the code, not on its own timeout.
 */
export async function workerExit(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, 'worker', ...args], {
    cwd: path.resolve(__dirname, '../..'),
    env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress'), ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const kill = setTimeout(() => child.kill('SIGKILL'), 45_000);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(kill);
  return { code, stderr };
}

/** Kills every worker process this file started (afterAll). */
export function killWorkerProcesses(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL');
}
