/**
 * The Go programs in polyglot/go (a remote tool's worker and a client that drives runs), built with Go into the
 * per-user cache under a hash of their sources, so a machine builds each version once. Node side only; the polyglot
 * tests and `provision-command --polyglot` use it.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DurableAgentError, errorMessage } from '../shared/errors';

import { exe, findOnPath, goInstallIntoCache, isExecutableFile, projectCacheDir } from './go-build';

/** The Go module's folder in this checkout (the same relative place from src/dev and dist/dev). */
export const POLYGLOT_MODULE_DIR = path.resolve(__dirname, '..', '..', 'polyglot', 'go');

/** What `go install` builds, and the name each program is cached under. */
const PROGRAMS = { 'tool-worker': 'tool-worker', 'agent-client': 'agent-client' } as const;

/** Thrown when the Go programs cannot be built; the message says why and how to fix it. */
export class PolyglotBuildError extends DurableAgentError {
  override readonly name = 'PolyglotBuildError';
}

/** Paths of the built programs. */
export interface PolyglotPrograms {
  /** A Temporal Go worker serving the `ledger_transfer` remote tool. */
  toolWorker: string;
  /** Starts, follows and approves a run using only the wire contract. */
  agentClient: string;
}

/** The files a build depends on: go.mod, go.sum and every .go file, by path relative to the module. */
async function sourceFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await fs.readdir(path.join(dir, prefix), { withFileTypes: true });
  const files = await Promise.all(
    entries.map(async (entry) => {
      const relative = path.posix.join(prefix, entry.name);
      if (entry.isDirectory()) return sourceFiles(dir, relative);
      return /\.go$|^go\.(mod|sum)$/.test(entry.name) ? [relative] : [];
    }),
  );
  return files.flat().sort();
}

/** A hash of the module's sources: any change to them (or to a pinned dependency) is a new cache folder. */
export async function polyglotSourceHash(moduleDir: string = POLYGLOT_MODULE_DIR): Promise<string> {
  const hash = createHash('sha256');
  for (const file of await sourceFiles(moduleDir)) {
    // Name and length delimit each file, so moving bytes from one file to the next changes the hash.
    const content = await fs.readFile(path.join(moduleDir, file));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex').slice(0, 16);
}

/** The cache folder of this checkout's programs: `<cache>/go-polyglot-<source hash>`. */
export async function polyglotCacheDir(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const hash = await polyglotSourceHash().catch((error: unknown) => {
    // The module ships with the repository, not the npm package.
    throw new PolyglotBuildError(
      `No Go module at ${POLYGLOT_MODULE_DIR} (a repository checkout has it): ${errorMessage(error)}`,
    );
  });
  return path.join(projectCacheDir(env), `go-polyglot-${hash}`);
}

/**
 * The built programs: from the cache, or built now with `go install` (a cold build downloads the Temporal Go SDK
 * from the Go module proxy and compiles it: a few minutes, once).
 */
export async function resolvePolyglotPrograms(
  options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<PolyglotPrograms> {
  const { env = process.env, log = () => undefined } = options;
  const cacheDir = await polyglotCacheDir(env);
  const programs = {
    toolWorker: path.join(cacheDir, exe(PROGRAMS['tool-worker'])),
    agentClient: path.join(cacheDir, exe(PROGRAMS['agent-client'])),
  };
  // Built already (or a CI cache restored the folder): Go is not needed to run them.
  if ((await Promise.all(Object.values(programs).map(isExecutableFile))).every(Boolean)) return programs;
  const go = await findOnPath(exe('go'), env);
  if (!go) {
    throw new PolyglotBuildError(
      `The Go programs of polyglot/go are not in ${cacheDir} and Go is not installed to build them: install Go 1.26 ` +
        'or later (https://go.dev/dl) and run this again.',
    );
  }
  try {
    await goInstallIntoCache(
      go,
      {
        label: 'the Go polyglot programs (tool-worker, agent-client)',
        cacheDir,
        moduleDir: POLYGLOT_MODULE_DIR,
        packages: Object.keys(PROGRAMS).map((name) => `./cmd/${name}`),
        programs: PROGRAMS,
      },
      env,
      log,
    );
  } catch (error) {
    throw new PolyglotBuildError(`Could not build the Go programs of polyglot/go: ${errorMessage(error)}`);
  }
  return programs;
}
