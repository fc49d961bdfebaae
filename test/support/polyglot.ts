import { spawn, type ChildProcess } from 'node:child_process';
import { beforeAll, inject } from 'vitest';
import { resolvePolyglotPrograms, type PolyglotPrograms } from '../../src/dev/go-polyglot';

/** A cold build downloads and compiles the Temporal Go SDK (about a minute and a half on two cores); then cached. */
const BUILD_TIMEOUT_MS = 10 * 60_000;

/** Builds (or finds in the cache) the Go programs of polyglot/go before the file's tests; `programs()` inside them. */
export function useGoPrograms(): () => PolyglotPrograms {
  let programs: PolyglotPrograms | undefined;
  beforeAll(async () => {
    programs = await resolvePolyglotPrograms({ log: (line) => console.log(`[go-polyglot] ${line}`) });
  }, BUILD_TIMEOUT_MS);
  return () => {
    if (!programs) throw new Error('the Go programs are only available inside tests');
    return programs;
  };
}

/** Where the Go programs find the suite's dev server. */
function serverEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_NAMESPACE: inject('temporalNamespace'),
  };
}

/** How a Go program ended and what it printed. */
export interface GoRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a Go program against the suite's server to its end. */
export function runGoProgram(file: string, args: readonly string[]): Promise<GoRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: serverEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** How long a Go program may take to connect and say it is ready (it takes well under a second when all is well). */
const READY_WITHIN_MS = 30_000;

/** Starts a long-running Go program and resolves once it prints `ready` (it then polls its task queue). */
export function startGoProgram(
  file: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: { ...serverEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    // A program that never says "ready" (a worker that cannot reach the server, say) fails here, naming itself and
    // what it printed, instead of the test timing out with no word of why.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} did not print "ready" within ${READY_WITHIN_MS / 1000} s: ${stderr.trim()}`));
    }, READY_WITHIN_MS);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      if (!chunk.toString().includes('ready')) return;
      clearTimeout(timer);
      resolve(child);
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with ${code} before it was ready: ${stderr.trim()}`));
    });
  });
}
