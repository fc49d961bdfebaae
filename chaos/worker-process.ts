import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { READY_LINE } from './protocol';

const PROJECT_ROOT = path.resolve(__dirname, '..');
const WORKER_ENTRY = path.join(PROJECT_ROOT, 'chaos', 'worker.ts');
/** How long a worker may take to connect and start polling (tsx compiles on first start). */
const START_TIMEOUT_MS = 60_000;
const STDERR_TAIL_CHARS = 4000;

/** Where a chaos worker connects and what it talks to. */
export interface ChaosWorkerSpec {
  address: string;
  taskQueue: string;
  modelBaseURL: string;
  ledgerURL: string;
  /** The openai client's timeout in the worker; the project default (60 s) when absent. */
  modelTimeoutMs?: number;
  workflowBundlePath?: string;
}

/**
 * `node --import tsx chaos/worker.ts` in one process (tsx's own CLI would put a second process in between, and a
 * SIGKILL of the outer one would leave the real worker running).
 */
function spawnWorker(spec: ChaosWorkerSpec): ChildProcess {
  const tsx = pathToFileURL(createRequire(path.join(PROJECT_ROOT, 'package.json')).resolve('tsx')).href;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_ADDRESS: spec.address,
    TEMPORAL_TASK_QUEUE: spec.taskQueue,
    OPENAI_BASE_URL: spec.modelBaseURL,
    CHAOS_LEDGER_URL: spec.ledgerURL,
  };
  delete env.CHAOS_MODEL_TIMEOUT_MS;
  delete env.CHAOS_WORKFLOW_BUNDLE;
  if (spec.modelTimeoutMs !== undefined) env.CHAOS_MODEL_TIMEOUT_MS = String(spec.modelTimeoutMs);
  if (spec.workflowBundlePath !== undefined) env.CHAOS_WORKFLOW_BUNDLE = spec.workflowBundlePath;
  return spawn(process.execPath, ['--import', tsx, WORKER_ENTRY], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Worker processes started here and still running, so an interrupted suite can end them. */
const live = new Set<ChildProcess>();

/** SIGKILLs every worker process this process started and that still runs (for SIGINT handlers). */
export function killAllWorkers(): void {
  for (const child of live) child.kill('SIGKILL');
}

/** One chaos worker process: started, then SIGKILLed or stopped by the driver. */
export class ChaosWorker {
  private stderr = '';
  /** Resolves with the exit code (null when a signal ended it) once the process is gone. */
  readonly exited: Promise<number | null>;
  private alive = true;

  private constructor(
    private readonly child: ChildProcess,
    readonly spec: ChaosWorkerSpec,
  ) {
    live.add(child);
    child.stderr?.on(
      'data',
      (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-STDERR_TAIL_CHARS)),
    );
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.alive = false;
        live.delete(child);
        resolve(code);
      }),
    );
  }

  /** Starts a worker and resolves once it polls its task queue. */
  static async start(spec: ChaosWorkerSpec): Promise<ChaosWorker> {
    const worker = new ChaosWorker(spawnWorker(spec), spec);
    await worker.ready();
    return worker;
  }

  /** The worker's process ID. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Whether the process is still running. */
  get running(): boolean {
    return this.alive;
  }

  private ready(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let stdout = '';
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`chaos worker did not start within ${START_TIMEOUT_MS} ms: ${this.stderrTail()}`));
      }, START_TIMEOUT_MS);
      this.child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.split('\n').includes(READY_LINE)) {
          clearTimeout(timer);
          resolve();
        }
      });
      void this.exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`chaos worker exited with ${code} before it was ready: ${this.stderrTail()}`));
      });
    });
  }

  /** What the worker last wrote on stderr (stack frames left out), for failure messages. */
  stderrTail(): string {
    const lines = this.stderr
      .trim()
      .split('\n')
      .filter((line) => !/^\s+at /.test(line));
    return lines.slice(-8).join(' | ');
  }

  /** Peak resident memory so far (VmHWM), in bytes; undefined where /proc is not available or the process is gone. */
  peakRssBytes(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kilobytes = /^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kilobytes === undefined ? undefined : Number(kilobytes) * 1024;
    } catch {
      return undefined;
    }
  }

  /** SIGKILL: no shutdown, no completion of in-flight work. Resolves once the process is gone. */
  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (the worker drains for up to 2 s), then SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.child.kill('SIGTERM');
    const lingering = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await this.exited;
    clearTimeout(lingering);
  }
}
