/** Finds the Temporal CLI, or builds it with Go into a per-user cache. Node side only, never in workflows. */
import { execFile, spawn } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DurableAgentError } from '../shared/errors';

/** The pinned CLI release (server 1.29.1, UI 2.42.1): later tags carry `replace` directives `go install` refuses. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** What `go install` builds. */
export const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
const BINARY = process.platform === 'win32' ? 'temporal.exe' : 'temporal';
const PROGRESS_INTERVAL_MS = 15_000;
// A cold `go install` takes minutes; a lock older than an hour is abandoned whoever holds it.
const LOCK_MAX_AGE_MS = 60 * 60_000;

/** Thrown when no usable Temporal CLI can be found, built or downloaded; the message says how to fix it. */
export class TemporalCliNotFoundError extends DurableAgentError {
  override readonly name = 'TemporalCliNotFoundError';
}

/** Where the CLI is: a binary on disk (and how it was found), or the SDK's own download on first start. */
export type TemporalCliExecutable =
  | { type: 'existing-path'; path: string; source: 'env' | 'path' | 'cache' | 'go-install' }
  | { type: 'cached-download'; source: 'sdk-download' };

type Log = (line: string) => void;
const noop = (): void => undefined;
const seconds = (since: number): number => Math.round((Date.now() - since) / 1000);
/** An error's message, for one-line reports. */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));
const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException | undefined)?.code;

/** The per-user folder holding the pinned CLI build: `$XDG_CACHE_HOME` (or `~/.cache`)/durable-react-agent/…. */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'durable-react-agent', `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

const isExecutableFile = (file: string): Promise<boolean> =>
  fs
    .access(file, fsConstants.X_OK)
    .then(() => fs.stat(file))
    .then(
      (stat) => stat.isFile(),
      () => false,
    );

async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  // An empty PATH entry means "current directory" to a shell; trusting the cwd for a binary is a footgun.
  const candidates = (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name));
  for (const candidate of candidates) if (await isExecutableFile(candidate)) return candidate;
  return undefined;
}

/** Other tools are also called `temporal`; only use one whose `--version` says it is the Temporal CLI. */
function isTemporalCli(file: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { env, timeout: 10_000 }, (error, out) => resolve(!error && /temporal/i.test(out)));
  });
}

/**
 * Finds the CLI: `TEMPORAL_CLI_PATH`, `temporal` on PATH, the cache, `go install` into the cache, else the SDK's
 * download. A set-but-broken `TEMPORAL_CLI_PATH` throws rather than silently running some other CLI.
 */
export async function resolveTemporalCli(
  options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<TemporalCliExecutable> {
  const { env = process.env, log = noop } = options;
  if (env.TEMPORAL_CLI_PATH) {
    const file = path.resolve(env.TEMPORAL_CLI_PATH);
    if (await isExecutableFile(file)) return { type: 'existing-path', path: file, source: 'env' };
    const problem = `TEMPORAL_CLI_PATH is set to "${env.TEMPORAL_CLI_PATH}", which is not an executable file.`;
    throw new TemporalCliNotFoundError(`${problem} Point it at a Temporal CLI binary or unset it.`);
  }
  const onPath = await findOnPath(BINARY, env);
  if (onPath && (await isTemporalCli(onPath, env))) return { type: 'existing-path', path: onPath, source: 'path' };
  const cached = path.join(temporalCliCacheDir(env), BINARY);
  if (await isExecutableFile(cached)) return { type: 'existing-path', path: cached, source: 'cache' };
  const go = await findOnPath(process.platform === 'win32' ? 'go.exe' : 'go', env);
  if (go) {
    try {
      return { type: 'existing-path', path: await buildWithGo(go, env, log), source: 'go-install' };
    } catch (error) {
      log(`Could not build the Temporal CLI with Go (${errorText(error)}); falling back to the SDK download.`);
    }
  }
  return { type: 'cached-download', source: 'sdk-download' };
}

async function buildWithGo(go: string, env: NodeJS.ProcessEnv, log: Log): Promise<string> {
  const cacheDir = temporalCliCacheDir(env);
  const target = path.join(cacheDir, BINARY);
  const parent = path.dirname(cacheDir);
  await fs.mkdir(parent, { recursive: true });
  const release = await acquireLock(`${cacheDir}.lock`, log);
  try {
    // Whoever held the lock before us may have just finished the same build.
    if (await isExecutableFile(target)) return target;
    // Build into a private GOBIN on the same filesystem, then rename: a killed build leaves no half-written binary.
    const gobin = await fs.mkdtemp(path.join(parent, `.build-temporal-cli-${TEMPORAL_CLI_VERSION}-`));
    try {
      const started = Date.now();
      log(`Building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go (first run only, takes a few minutes)…`);
      const timer = setInterval(() => log(`still building… ${seconds(started)}s`), PROGRESS_INTERVAL_MS);
      await runGoInstall(go, { ...env, GOBIN: gobin }, parent).finally(() => clearInterval(timer));
      await fs.mkdir(cacheDir, { recursive: true });
      await fs.rename(path.join(gobin, BINARY), target);
      log(`built in ${seconds(started)}s: ${target}`);
      return target;
    } finally {
      await fs.rm(gobin, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}

function runGoInstall(go: string, env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', GO_PACKAGE], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    // Keep only the tail: `go install` prints a line per downloaded module, and the error comes last.
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString()).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const tail = output.trim().split('\n').slice(-5).join(' | ');
      reject(new Error(`go install exited with ${code ?? signal}: ${tail}`));
    });
  });
}

/** An exclusive-create lock file, so concurrent first runs (parallel tests, two terminals) build the CLI only once. */
async function acquireLock(lockFile: string, log: Log): Promise<() => Promise<void>> {
  const started = Date.now();
  let lastNotice = started;
  for (;;) {
    try {
      await fs.writeFile(lockFile, JSON.stringify({ pid: process.pid, host: os.hostname() }), { flag: 'wx' });
      return () => fs.rm(lockFile, { force: true });
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    // Correctness never depends on the lock (private GOBIN, atomic rename): a stale-lock race costs a second build.
    if (await isStaleLock(lockFile)) {
      await fs.rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() - lastNotice >= PROGRESS_INTERVAL_MS) {
      lastNotice = Date.now();
      log(`waiting for another process to finish building the Temporal CLI… ${seconds(started)}s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function isStaleLock(lockFile: string): Promise<boolean> {
  try {
    const [stat, text] = await Promise.all([fs.stat(lockFile), fs.readFile(lockFile, 'utf8')]);
    if (Date.now() - stat.mtimeMs > LOCK_MAX_AGE_MS) return true;
    const owner = JSON.parse(text) as { pid?: unknown; host?: unknown };
    if (owner.host !== os.hostname() || typeof owner.pid !== 'number') return false;
    process.kill(owner.pid, 0); // signal 0 only probes whether the owner still exists
    return false;
  } catch (error) {
    // ESRCH: the owner died. Anything else (released meanwhile, caught mid-write): just try to create it again.
    return errorCode(error) === 'ESRCH';
  }
}
