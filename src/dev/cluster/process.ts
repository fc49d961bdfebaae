/** Small helpers for the cluster's child processes (PostgreSQL, the Temporal services, setup scripts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { ClusterSetupError } from './errors';

/** Process groups of the cluster's children still running, ended if this process exits without stopping them. */
const running = new Set<number>();
let hooksInstalled = false;

function killAll(): void {
  for (const group of running) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * A Ctrl-C or SIGTERM that nobody else handles would end Node without an 'exit' event, and the children, in process
 * groups of their own, would not see it: end them, then die of the signal as Node would have. When another listener
 * handles the signal (the cluster command stops everything gracefully), it is left to that one.
 */
function onSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return;
  killAll();
  process.removeListener(signal, onSignal);
  process.kill(process.pid, signal);
}

/**
 * Ends `child`'s process group (SIGKILL) if this process exits or is interrupted while it still runs: a test runner
 * or terminal that ends us abruptly must not leave servers holding ports and a database behind.
 */
export function endWithUs(child: ChildProcess): void {
  const { pid } = child;
  if (!pid) return;
  running.add(pid);
  child.once('exit', () => running.delete(pid));
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', killAll);
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
}

/** Resolves with the exit code (null after a signal) once `child` is gone, at once if it already is. */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Sends `signal` to `child`'s process group and waits; after `timeoutMs` the group gets SIGKILL. */
export async function signalAndWait(child: ChildProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  const done = exited(child);
  const send = (which: NodeJS.Signals): void => {
    try {
      // Negative: the group the child leads (spawned detached), so helpers it started go too.
      if (child.pid) process.kill(-child.pid, which);
    } catch {
      // Already gone.
    }
  };
  send(signal);
  const timer = setTimeout(() => send('SIGKILL'), timeoutMs);
  await done;
  clearTimeout(timer);
}

/**
 * Polls `ready` until it is true; fails (with `why()`) when `timeoutMs` passes or when `child`, the process that
 * should become ready, exits first.
 */
export async function waitFor(
  ready: () => boolean | Promise<boolean>,
  timeoutMs: number,
  child: ChildProcess | undefined,
  why: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await ready()) return;
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new ClusterSetupError(`${why()} (it exited with ${child.exitCode ?? child.signalCode})`);
    }
    if (Date.now() > deadline) throw new ClusterSetupError(`${why()} (still not ready after ${timeoutMs / 1000} s)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Runs a command to its end; resolves with its exit code and the tail of what it printed. An aborted `signal` kills
 * its whole process group (a script's own children too); `user` runs it as that user (we must be root), in
 * `cwd` (a folder that user can enter).
 */
export function runToEnd(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; signal?: AbortSignal; user?: { uid: number; gid: number }; cwd?: string } = {},
): Promise<{ code: number | null; output: string }> {
  const { env = process.env, signal, user, cwd } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      ...(user ?? {}),
    });
    endWithUs(child);
    const abort = (): void => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    signal?.addEventListener('abort', abort, { once: true });
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-8000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('close', (code) => {
      signal?.removeEventListener('abort', abort);
      resolve({ code, output });
    });
  });
}
