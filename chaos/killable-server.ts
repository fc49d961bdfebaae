import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startDevServer, type DevServer, type DevServerOptions } from '../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { sleep } from './measure';
import { freePort } from '../src/testing/free-port';

/** The ID of our own child process whose command line names `dbFile` (the dev server started on it). */
function serverPid(dbFile: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 is the parent's ID; the command name before it is in parentheses and may contain spaces.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent !== process.pid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(dbFile)) return Number(entry);
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

/** Whether `pid` still runs (a zombie, dead but not yet reaped by its parent, does not). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Servers started here and not yet stopped, so an interrupted suite can stop them (see {@link stopAllServers}). */
const live = new Set<KillableDevServer>();

/** Stops every server this process started here and has not stopped (for SIGINT handlers). */
export async function stopAllServers(): Promise<void> {
  await Promise.all([...live].map((server) => server.stop().catch(() => undefined)));
}

/**
 * A dev server persisted in a SQLite file that can be SIGKILLed (no shutdown, as in a crash or an OOM kill) and
 * started again on the same file and ports. Linux only: the server's process is found through /proc.
 */
export class KillableDevServer {
  private constructor(
    private current: DevServer,
    private readonly options: DevServerOptions & { dbFile: string },
  ) {}

  /** Starts a server on `dbFile` with free ports and the agent's search attributes. */
  static async start(dbFile: string): Promise<KillableDevServer> {
    const port = await freePort();
    let uiPort = await freePort();
    while (uiPort === port) uiPort = await freePort();
    const options = { dbFile: path.resolve(dbFile), port, uiPort, searchAttributes: [...AGENT_SEARCH_ATTRIBUTES] };
    const server = new KillableDevServer(await startDevServer(options), options);
    live.add(server);
    return server;
  }

  /** The frontend address, the same across restarts. */
  get address(): string {
    return this.current.address;
  }

  /** SIGKILLs the server process and waits until it is gone. */
  async kill(): Promise<void> {
    const pid = serverPid(this.options.dbFile);
    if (pid === undefined) throw new Error(`no dev server process of ours runs on ${this.options.dbFile}`);
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await sleep(20);
    // Releases the SDK's handles on the dead server; it may complain that the process is already gone.
    await this.current.stop().catch(() => undefined);
  }

  /** Starts the server again on the same database file and ports. */
  async restart(): Promise<void> {
    this.current = await startDevServer(this.options);
  }

  /** Stops the server normally. */
  async stop(): Promise<void> {
    live.delete(this);
    await this.current.stop();
  }
}
