/**
 * Builds pinned Go programs (the Temporal CLI, the Temporal server and its schema tool, the polyglot test programs)
 * with `go install` into a per-user cache, once per machine. Node side only, never in workflows.
 */
import { spawn } from 'node:child_process';
import { constants as fsConstants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const PROGRESS_INTERVAL_MS = 15_000;
// A cold `go install` takes minutes; a lock older than an hour is abandoned whoever holds it.
const LOCK_MAX_AGE_MS = 60 * 60_000;

type Log = (line: string) => void;
const seconds = (since: number): number => Math.round((Date.now() - since) / 1000);
const errorCode = (error: unknown): unknown => (error as NodeJS.ErrnoException | undefined)?.code;
/** A program's file name on this platform. */
export const exe = (name: string): string => (process.platform === 'win32' ? `${name}.exe` : name);

/** The per-user cache root: `$XDG_CACHE_HOME` (or `~/.cache`)/durable-react-agent. */
export function projectCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || os.homedir(), '.cache');
  return path.join(base, 'durable-react-agent');
}

export const isExecutableFile = (file: string): Promise<boolean> =>
  fs
    .access(file, fsConstants.X_OK)
    .then(() => fs.stat(file))
    .then(
      (stat) => stat.isFile(),
      () => false,
    );

/** The first executable `name` on PATH (empty entries skipped: trusting the cwd for a binary is a footgun). */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const candidates = (env.PATH ?? '')
    .split(path.delimiter)
    .filter(Boolean)
    .map((dir) => path.join(dir, name));
  for (const candidate of candidates) if (await isExecutableFile(candidate)) return candidate;
  return undefined;
}

/** What to build: Go packages (`module/path@version`) and, for each program they make, the name it is cached under. */
export interface GoBuild {
  /** Says what is built in progress lines, e.g. "the Temporal CLI v1.5.1". */
  label: string;
  /** The folder the programs end up in (it exists only once every program is there). */
  cacheDir: string;
  /** `module/path@version` each, or `./cmd/x` paths inside `moduleDir`. */
  packages: readonly string[];
  /** A module on disk whose `packages` to build (its go.sum pins every dependency); absent for `@version` builds. */
  moduleDir?: string;
  /** `go install`'s output name (the package's last path element) → the name in `cacheDir`. */
  programs: Readonly<Record<string, string>>;
}

/**
 * Runs `go install` for `build` unless its programs are cached, and returns `cacheDir`. Concurrent callers (parallel
 * tests, two terminals) build once: an exclusive lock file, a private GOBIN, and a rename of the finished folder.
 */
export async function goInstallIntoCache(
  go: string,
  build: GoBuild,
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<string> {
  const { cacheDir, programs } = build;
  const complete = async (): Promise<boolean> =>
    (await Promise.all(Object.values(programs).map((name) => isExecutableFile(path.join(cacheDir, exe(name)))))).every(
      Boolean,
    );
  if (await complete()) return cacheDir;
  const parent = path.dirname(cacheDir);
  await fs.mkdir(parent, { recursive: true });
  const release = await acquireLock(`${cacheDir}.lock`, build.label, log);
  try {
    // Whoever held the lock before us may have just finished the same build.
    if (await complete()) return cacheDir;
    // Build into a private GOBIN on the same filesystem, then rename: a killed build leaves no half-written binary.
    const gobin = await fs.mkdtemp(path.join(parent, `.build-${path.basename(cacheDir)}-`));
    try {
      const started = Date.now();
      log(`Building ${build.label} with Go (first run only, takes a few minutes)…`);
      const timer = setInterval(() => log(`still building… ${seconds(started)}s`), PROGRESS_INTERVAL_MS);
      await runGoInstall(go, build.packages, { ...goEnv(build, env), GOBIN: gobin }, build.moduleDir ?? parent).finally(
        () => clearInterval(timer),
      );
      await fs.mkdir(cacheDir, { recursive: true });
      for (const [built, name] of Object.entries(programs))
        await fs.rename(path.join(gobin, exe(built)), path.join(cacheDir, exe(name)));
      const built = Object.values(programs).map((name) => path.join(cacheDir, exe(name)));
      log(`built in ${seconds(started)}s: ${built.join(', ')}`);
      return cacheDir;
    } finally {
      await fs.rm(gobin, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}

/**
 * The environment of a build. A local module's cache key is its sources' hash, so VCS stamping adds nothing, and it
 * fails where git is missing or the checkout belongs to another user.
 */
function goEnv(build: GoBuild, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!build.moduleDir) return env;
  return { ...env, GOFLAGS: [env.GOFLAGS, '-buildvcs=false'].filter(Boolean).join(' ') };
}

function runGoInstall(go: string, packages: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(go, ['install', ...packages], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
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

/**
 * An exclusive-create lock file, so concurrent first runs build (or download) only once; resolves to its release.
 * `label` names what is being made in the "waiting for another process" lines.
 */
export async function acquireLock(lockFile: string, label: string, log: Log): Promise<() => Promise<void>> {
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
      log(`waiting for another process to finish providing ${label}… ${seconds(started)}s`);
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
