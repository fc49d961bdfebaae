/** Starts the Temporal CLI's embedded dev server. Node side only, never in workflows. */
import { promises as fs } from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { Connection } from '@temporalio/client';
import { SearchAttributeType, defineSearchAttributeKey } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { GO_PACKAGE, resolveTemporalCli, TemporalCliNotFoundError } from './provision';
import { lockDatabase } from './db-lock';
import { devServerDurability, devServerSqliteArgs, devServerTuningArgs, type DevServerDurability } from './tuning';
import { errorMessage } from '../shared/errors';

const PREFERRED_PORT = 7233;
/** Where the dev server serves the Temporal UI unless that port is taken (and where `run` looks for one it reuses). */
export const PREFERRED_UI_PORT = 8233;

/** Types of the custom search attributes the dev server registers at start (`--search-attribute NAME=Type`). */
export type SearchAttributeKind = 'keyword' | 'text' | 'int' | 'double' | 'bool' | 'datetime' | 'keywordList';

/** Options for {@link startDevServer}; ports default to 7233 / 8233 when free, else to free ports. */
export type DevServerOptions = {
  dbFile?: string;
  port?: number;
  uiPort?: number;
  log?: (line: string) => void;
  namespace?: string;
  searchAttributes?: Array<{ name: string; type: SearchAttributeKind }>;
  /** How the database file commits (default: TEMPORAL_DEV_DURABILITY, else `fast`; or `strict`). */
  durability?: DevServerDurability;
};

/** A running dev server; `stop()` kills it and closes the connections opened while starting it. */
export type DevServer = { address: string; uiUrl: string | undefined; namespace: string; stop(): Promise<void> };

const toSdkType = (type: SearchAttributeKind): SearchAttributeType =>
  type === 'keywordList' ? SearchAttributeType.KEYWORD_LIST : (type.toUpperCase() as Uppercase<typeof type>);

const noop = (): void => undefined;

function listenOnce(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(undefined));
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/** `preferred` when free, else a port the OS hands out; never `avoid`, the port the other listener already got. */
export async function choosePort(preferred: number | undefined, avoid?: number): Promise<number> {
  if (preferred !== undefined && preferred !== avoid && (await listenOnce(preferred)) !== undefined) return preferred;
  for (;;) {
    const port = await listenOnce(0);
    if (port !== undefined && port !== avoid) return port;
  }
}

/** Starts the Temporal dev server on 127.0.0.1 with the UI, keeping state in `dbFile` (SQLite) or in memory. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const { log = noop, namespace = 'default' } = options;
  const executable = await resolveTemporalCli({ log });
  const dbFilename = options.dbFile === undefined ? undefined : path.resolve(options.dbFile);
  if (dbFilename) await fs.mkdir(path.dirname(dbFilename), { recursive: true });
  const release = dbFilename ? await lockDatabase(dbFilename) : async () => undefined;
  const searchAttributes = options.searchAttributes?.map((a) => defineSearchAttributeKey(a.name, toSdkType(a.type)));
  const port = options.port ?? (await choosePort(PREFERRED_PORT));
  const uiPort = options.uiPort ?? (await choosePort(PREFERRED_UI_PORT, port));
  const environment = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: executable.type === 'existing-path' ? { type: 'existing-path', path: executable.path } : executable,
      ip: '127.0.0.1',
      port,
      ui: true,
      uiPort,
      dbFilename,
      namespace,
      searchAttributes,
      log: { format: 'pretty', level: 'error' },
      // Without `--output none` the CLI's banner lands on our stdout (and would corrupt `run --json`).
      extraArgs: [
        '--output',
        'none',
        ...devServerTuningArgs(),
        ...(dbFilename ? devServerSqliteArgs(options.durability ?? devServerDurability()) : []),
      ],
    },
  }).catch(async (error: unknown) => {
    await release();
    // Only the SDK download can fail for want of a CLI; any other failure is the server's own and keeps its error.
    if (executable.type === 'existing-path') throw error;
    const why = `The Temporal CLI is not installed and its download failed (${errorMessage(error).split('\n')[0]}).`;
    const fixes =
      'Fix it one of these ways: set TEMPORAL_CLI_PATH to a temporal binary; put `temporal` on PATH ' +
      `(https://docs.temporal.io/cli); install Go (https://go.dev/dl) so \`go install ${GO_PACKAGE}\` can build it; ` +
      'or allow downloads from temporal.download.';
    throw new TemporalCliNotFoundError(`${why} ${fixes}`, { cause: error });
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= environment.teardown().finally(release));
  return { address: `127.0.0.1:${port}`, uiUrl: `http://127.0.0.1:${uiPort}`, namespace, stop };
}

/** Whether something accepts a TCP connection at `host:port` within `timeoutMs`. */
export function canConnectTcp(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    const done = (ok: boolean) => (): void => void (socket.destroy(), resolve(ok));
    socket.once('connect', done(true)).once('timeout', done(false)).once('error', done(false));
  });
}

/** True when a Temporal frontend answers gRPC at `host:port`; each of the TCP and gRPC probes gets `timeoutMs`. */
export async function isServerAnswering(address: string, timeoutMs = 1000): Promise<boolean> {
  const [, host = '', port = ''] = /^\[?([^\]]*?)\]?:(\d+)$/.exec(address) ?? [];
  // The TCP probe answers the common "nothing listening" case fast and quietly, before any gRPC machinery starts.
  if (!host || !(await canConnectTcp(host, Number(port), timeoutMs))) return false;
  // lazy + ensureConnected (which calls getSystemInfo) rather than connect(): a failed connect() leaks its channel.
  const connection = Connection.lazy({ address, connectTimeout: timeoutMs });
  const answered = await connection.ensureConnected().then(
    () => true,
    () => false,
  );
  await connection.close().catch(noop);
  return answered;
}
