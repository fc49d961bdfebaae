/**
 * Finds the Temporal CLI, or downloads it (else builds it with Go) into a per-user cache. Node side only, never in
 * workflows.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { readEnv } from '../common/env';
import { DurableAgentError, errorMessage } from '../shared/errors';
import { downloadTemporalCli } from './cli-download';
import { exe, findOnPath, goInstallIntoCache, isExecutableFile, projectCacheDir } from './go-build';

/** The pinned CLI release (server 1.29.1, UI 2.42.1): later tags carry `replace` directives `go install` refuses. */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/** What `go install` builds. */
export const GO_PACKAGE = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
const BINARY = exe('temporal');

/** Thrown when no usable Temporal CLI can be found, built or downloaded; the message says how to fix it. */
export class TemporalCliNotFoundError extends DurableAgentError {
  override readonly name = 'TemporalCliNotFoundError';
}

/** Where the CLI is: a binary on disk (and how it was found), or the SDK's own download on first start. */
export type TemporalCliExecutable =
  | { type: 'existing-path'; path: string; source: 'env' | 'path' | 'cache' | 'download' | 'go-install' }
  | { type: 'cached-download'; source: 'sdk-download' };

const noop = (): void => undefined;
/** An error's message, for one-line reports. */

/** The per-user folder holding the pinned CLI build: `$XDG_CACHE_HOME` (or `~/.cache`)/durable-react-agent/…. */
export function temporalCliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(projectCacheDir(env), `temporal-cli-${TEMPORAL_CLI_VERSION}`);
}

/** Other tools are also called `temporal`; only use one whose `--version` says it is the Temporal CLI. */
function isTemporalCli(file: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(file, ['--version'], { env, timeout: 10_000 }, (error, out) => resolve(!error && /temporal/i.test(out)));
  });
}

/**
 * Finds the CLI: `TEMPORAL_CLI_PATH`, `temporal` on PATH, the cache, a download from temporal.download into the cache
 * (`TEMPORAL_CLI_DOWNLOAD_URL` replaces the host), `go install` into the cache, else the SDK's own download. A
 * set-but-broken `TEMPORAL_CLI_PATH` throws rather than silently running some other CLI.
 */
export async function resolveTemporalCli(
  options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<TemporalCliExecutable> {
  const { env = process.env, log = noop } = options;
  const { temporalCliPath } = readEnv(env);
  if (temporalCliPath) {
    const file = path.resolve(temporalCliPath);
    if (await isExecutableFile(file)) return { type: 'existing-path', path: file, source: 'env' };
    const problem = `TEMPORAL_CLI_PATH is set to "${temporalCliPath}", which is not an executable file.`;
    throw new TemporalCliNotFoundError(`${problem} Point it at a Temporal CLI binary or unset it.`);
  }
  const onPath = await findOnPath(BINARY, env);
  if (onPath && (await isTemporalCli(onPath, env))) return { type: 'existing-path', path: onPath, source: 'path' };
  const cached = path.join(temporalCliCacheDir(env), BINARY);
  if (await isExecutableFile(cached)) return { type: 'existing-path', path: cached, source: 'cache' };
  // The download takes seconds where a Go build takes minutes; without internet it fails within its short timeout.
  try {
    const file = await downloadTemporalCli({
      version: TEMPORAL_CLI_VERSION,
      cacheDir: temporalCliCacheDir(env),
      env,
      log,
    });
    // A mirror (or a tampered download) could serve any file under the expected name: cached, it would be used ever after.
    if (!(await isTemporalCli(file, env))) {
      await rm(file, { force: true });
      throw new Error(`the downloaded ${BINARY} does not answer --version as the Temporal CLI`);
    }
    return { type: 'existing-path', path: file, source: 'download' };
  } catch (error) {
    log(`Could not download the Temporal CLI (${errorMessage(error)}); trying a Go build.`);
  }
  const go = await findOnPath(exe('go'), env);
  if (go) {
    try {
      const build = {
        label: `the Temporal CLI ${TEMPORAL_CLI_VERSION}`,
        cacheDir: temporalCliCacheDir(env),
        packages: [GO_PACKAGE],
        programs: { temporal: 'temporal' },
      };
      await goInstallIntoCache(go, build, env, log);
      return { type: 'existing-path', path: cached, source: 'go-install' };
    } catch (error) {
      log(`Could not build the Temporal CLI with Go (${errorMessage(error)}); falling back to the SDK download.`);
    }
  }
  return { type: 'cached-download', source: 'sdk-download' };
}
