/**
 * The programs a PostgreSQL-backed Temporal cluster needs on this machine: the Temporal server and its schema tool
 * (built with Go into the per-user cache, like the CLI) and PostgreSQL's own programs (found, or installed with apt).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { exe, findOnPath, goInstallIntoCache, isExecutableFile, projectCacheDir } from '../go-build';
import { readEnv } from '../../common/env';
import { ClusterSetupError } from './errors';
import { runToEnd } from './process';

export { ClusterSetupError } from './errors';

/** The server release the pinned CLI embeds (its go.mod has no `replace` directives, so `go install` builds it). */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

type Log = (line: string) => void;
const noop: Log = () => undefined;

/** The cached server build: `temporal-server` and `temporal-sql-tool`, the names Temporal's images use. */
export function temporalServerCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(projectCacheDir(env), `temporal-server-${TEMPORAL_SERVER_VERSION}`);
}

/** Paths of the Temporal server and its schema tool. */
export interface ServerPrograms {
  server: string;
  sqlTool: string;
}

/** Finds the cached server build or builds it with Go (minutes, once per machine). */
export async function resolveServerPrograms(
  options: { log?: Log; env?: NodeJS.ProcessEnv } = {},
): Promise<ServerPrograms> {
  const { env = process.env, log = noop } = options;
  const dir = temporalServerCacheDir(env);
  const programs = {
    server: path.join(dir, exe('temporal-server')),
    sqlTool: path.join(dir, exe('temporal-sql-tool')),
  };
  if ((await isExecutableFile(programs.server)) && (await isExecutableFile(programs.sqlTool))) return programs;
  const go = await findOnPath(exe('go'), env);
  if (!go) {
    throw new ClusterSetupError(
      `The Temporal server ${TEMPORAL_SERVER_VERSION} is not in ${dir} and Go is not installed to build it: ` +
        'install Go (https://go.dev/dl) and run this again.',
    );
  }
  await goInstallIntoCache(
    go,
    {
      label: `the Temporal server ${TEMPORAL_SERVER_VERSION} and its schema tool`,
      cacheDir: dir,
      packages: [
        `go.temporal.io/server/cmd/server@${TEMPORAL_SERVER_VERSION}`,
        `go.temporal.io/server/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
      ],
      programs: { server: 'temporal-server', sql: 'temporal-sql-tool' },
    },
    env,
    log,
  );
  return programs;
}

/** The folder holding PostgreSQL's `initdb`, `postgres` and `pg_isready`. */
export interface PostgresPrograms {
  initdb: string;
  postgres: string;
  pgIsReady: string;
}

const programsIn = (dir: string): PostgresPrograms => ({
  initdb: path.join(dir, 'initdb'),
  postgres: path.join(dir, 'postgres'),
  pgIsReady: path.join(dir, 'pg_isready'),
});

async function usable(dir: string): Promise<boolean> {
  const programs = programsIn(dir);
  return (await Promise.all(Object.values(programs).map(isExecutableFile))).every(Boolean);
}

/** Where PostgreSQL may be: PG_BIN_DIR alone when set, else the folder `initdb` on PATH really lives in, Debian's versioned folders. */
async function candidateDirs(env: NodeJS.ProcessEnv): Promise<string[]> {
  // A set PG_BIN_DIR is the only place looked at: a broken one is reported rather than quietly passed over.
  const { pgBinDir } = readEnv(env).provisioning;
  if (pgBinDir) return [path.resolve(pgBinDir)];
  const dirs: string[] = [];
  const onPath = await findOnPath('initdb', env);
  // Debian links /usr/local/bin/initdb to /usr/lib/postgresql/15/bin/initdb; the real folder has pg_isready too.
  if (onPath) dirs.push(path.dirname(await fs.realpath(onPath)), path.dirname(onPath));
  const debian = '/usr/lib/postgresql';
  const versions = await fs.readdir(debian).catch(() => [] as string[]);
  for (const version of versions.sort((a, b) => Number(b) - Number(a))) dirs.push(path.join(debian, version, 'bin'));
  return dirs;
}

/** Runs an apt-get step; a failure is logged with the last lines it printed. */
async function apt(command: string, args: string[], log: Log): Promise<boolean> {
  const { code, output } = await runToEnd(command, args, {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (code !== 0) log(`${command} ${args.join(' ')} failed: ${output.trim().split('\n').slice(-3).join(' | ')}`);
  return code === 0;
}

/**
 * Finds PostgreSQL, or installs Debian's package when apt-get is there and we are root (a fresh CI machine); the
 * package's own cluster is left alone, each cluster here runs its own throwaway data folder.
 */
export async function resolvePostgresPrograms(
  options: { log?: Log; env?: NodeJS.ProcessEnv } = {},
): Promise<PostgresPrograms> {
  const { env = process.env, log = noop } = options;
  const find = async (): Promise<PostgresPrograms | undefined> => {
    for (const dir of await candidateDirs(env)) if (await usable(dir)) return programsIn(dir);
    return undefined;
  };
  const found = await find();
  if (found) return found;
  const { pgBinDir } = readEnv(env).provisioning;
  if (pgBinDir) {
    throw new ClusterSetupError(`PG_BIN_DIR is "${pgBinDir}", which has no initdb, postgres and pg_isready.`);
  }
  const aptGet = await findOnPath('apt-get', env);
  if (aptGet && process.getuid?.() === 0) {
    log('Installing PostgreSQL with apt-get (first run only)…');
    const install = ['install', '-y', '--no-install-recommends', 'postgresql'];
    // A fresh image has no package lists yet: update once and try again.
    if (!(await apt(aptGet, install, log)) && (await apt(aptGet, ['update'], log))) await apt(aptGet, install, log);
    const installed = await find();
    if (installed) return installed;
  }
  throw new ClusterSetupError(
    'PostgreSQL is not installed (no initdb, postgres and pg_isready found): install it (Debian: apt-get install ' +
      'postgresql) or set PG_BIN_DIR to the folder holding its programs.',
  );
}
