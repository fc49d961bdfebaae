/**
 * A throwaway PostgreSQL server in a folder of its own: initdb, then `postgres` listening on loopback only, with a
 * password user for Temporal. Started, stopped, killed and restarted by the cluster (and its chaos tests).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PostgresPrograms } from './binaries';
import { ClusterSetupError } from './errors';
import { endWithUs, exited, runToEnd, signalAndWait, waitFor } from './process';

/** Who PostgreSQL runs as: it refuses to run as root, so root hands it to the `postgres` user. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string): number => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new ClusterSetupError(
      'PostgreSQL cannot run as root and this machine has no `postgres` user to run it as: create one ' +
        '(Debian: apt-get install postgresql does) or run as an ordinary user.',
    );
  }
}

/** Where and as whom the PostgreSQL server listens. */
export interface PostgresOptions {
  programs: PostgresPrograms;
  /** The folder holding the data directory and the server's log (created; owned by the server's user). */
  dir: string;
  port: number;
  user: string;
  password: string;
  log?: (line: string) => void;
}

/** A running throwaway PostgreSQL. */
export class ThrowawayPostgres {
  private child: ChildProcess | undefined;
  private readonly owner = serverUser();

  private constructor(private readonly options: PostgresOptions) {}

  /** Creates the data folder with initdb (scram-sha-256 passwords, the given user as superuser) and starts it. */
  static async start(options: PostgresOptions): Promise<ThrowawayPostgres> {
    const postgres = new ThrowawayPostgres(options);
    await postgres.init();
    // A server that started but never answered must not outlive the failed start (the caller has no handle on it).
    await postgres.restart().catch(async (error: unknown) => {
      await postgres.kill();
      throw error;
    });
    return postgres;
  }

  get port(): number {
    return this.options.port;
  }

  private get dataDir(): string {
    return path.join(this.options.dir, 'data');
  }

  private async init(): Promise<void> {
    const { dir, user, password, programs } = this.options;
    await fs.mkdir(dir, { recursive: true });
    const passwordFile = path.join(dir, 'password');
    await fs.writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (this.owner) {
      await fs.chown(dir, this.owner.uid, this.owner.gid);
      await fs.chown(passwordFile, this.owner.uid, this.owner.gid);
    }
    const args = ['-D', this.dataDir, '-U', user, `--pwfile=${passwordFile}`, '--auth=scram-sha-256', '-E', 'UTF8'];
    const { code, output } = await runToEnd(programs.initdb, [...args, '--no-instructions'], {
      cwd: dir,
      ...(this.owner ? { user: this.owner } : {}),
    });
    await fs.rm(passwordFile, { force: true });
    if (code !== 0)
      throw new ClusterSetupError(`initdb failed (${code}): ${output.trim().split('\n').slice(-3).join(' | ')}`);
  }

  /** Starts the server on its data folder (again, after {@link stop} or {@link kill}) and waits until it answers. */
  async restart(): Promise<void> {
    const { programs, port } = this.options;
    const logFile = createWriteStream(path.join(this.options.dir, 'postgres.log'), { flags: 'a' });
    // Loopback TCP only (no Unix socket to place); enough connections for four services' pools and the tools.
    const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'max_connections=300'];
    const args = ['-D', this.dataDir, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])];
    const child = spawn(programs.postgres, args, {
      cwd: this.options.dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(this.owner ?? {}),
      // Its own process group, ended as one: the postmaster's children go with it.
      detached: true,
    });
    // Two sources into one file: neither may end it alone (the other would write after its end).
    child.stdout?.pipe(logFile, { end: false });
    child.stderr?.pipe(logFile, { end: false });
    child.once('close', () => logFile.end());
    this.child = child;
    endWithUs(child);
    const ready = async (): Promise<boolean> =>
      (await runToEnd(programs.pgIsReady, ['-h', '127.0.0.1', '-p', String(port), '-t', '1'])).code === 0;
    await waitFor(ready, 30_000, child, () => `PostgreSQL did not start on port ${port}; see ${String(logFile.path)}`);
  }

  /** A fast shutdown (SIGINT: open transactions are rolled back, clients disconnected), as `pg_ctl stop -m fast`. */
  async stop(): Promise<void> {
    if (this.child) await signalAndWait(this.child, 'SIGINT', 30_000);
    this.child = undefined;
  }

  /** A crash: SIGKILL of the postmaster; the next start recovers from the write-ahead log. */
  async kill(): Promise<void> {
    if (!this.child?.pid) return;
    // The postmaster's children would live on after a SIGKILL and keep the port: end the whole group.
    process.kill(-this.child.pid, 'SIGKILL');
    await exited(this.child);
    this.child = undefined;
  }
}
