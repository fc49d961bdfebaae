/**
 * The Temporal server as production runs it: one process per service, all reading deploy/temporal/config with
 * their ports and database from the environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ClusterSetupError } from './errors';
import { endWithUs, signalAndWait } from './process';

/** The services of a Temporal cluster, in the order they start (the frontend needs history and matching to serve). */
export const CLUSTER_SERVICES = ['history', 'matching', 'frontend', 'worker'] as const;
/** One of {@link CLUSTER_SERVICES}. */
export type ClusterService = (typeof CLUSTER_SERVICES)[number];

/** deploy/temporal: the configuration the cluster and docker-compose.yml share (same depth from src/ and dist/). */
export const DEPLOY_TEMPORAL_DIR = path.resolve(__dirname, '..', '..', '..', 'deploy', 'temporal');

/** Starts, kills and stops the service processes of one cluster. */
export class ServiceProcesses {
  private readonly children = new Map<ClusterService, ChildProcess>();

  constructor(
    private readonly server: string,
    /** The environment config/production.yaml reads (ports, database, shards). */
    private readonly env: NodeJS.ProcessEnv,
    private readonly logDir: string,
  ) {}

  /** Starts `service` (again); its output is appended to `<logDir>/<service>.log`. */
  async start(service: ClusterService): Promise<void> {
    await fs.mkdir(this.logDir, { recursive: true });
    const log = createWriteStream(path.join(this.logDir, `${service}.log`), { flags: 'a' });
    // The script docker-compose.yml starts each server container with; it execs the server, so `child` is the server.
    const script = path.join(DEPLOY_TEMPORAL_DIR, 'start-service.sh');
    const env = { ...this.env, TEMPORAL_SERVER: this.server };
    const child = spawn('sh', [script, service], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    // A failed spawn (no `sh`) shows as an exit with no code; without a listener it would crash this process.
    child.once('error', (error) => log.write(`could not start: ${error.message}\n`));
    // Two sources into one file: neither may end it alone (the other would write after its end).
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('close', () => log.end());
    endWithUs(child);
    this.children.set(service, child);
  }

  /**
   * Rejects when any service started so far exits, saying which and the last line of its log (the reason, usually);
   * never resolves. For start-up, when nothing should exit.
   */
  firstExit(): Promise<never> {
    const exits = [...this.children].map(
      ([service, child]) =>
        new Promise<never>((_, reject) => {
          const report = (code: number | null, signal: NodeJS.Signals | null): void =>
            void fs
              .readFile(this.logOf(service), 'utf8')
              .catch(() => '')
              .then((text) => {
                const last = text.trim().split('\n').at(-1) ?? '';
                const why = `the ${service} service exited (${code ?? signal}): ${last.slice(0, 500)}`;
                reject(new ClusterSetupError(why));
              });
          // One that already exited (while later services were starting) is reported at once.
          if (child.exitCode !== null || child.signalCode !== null) report(child.exitCode, child.signalCode);
          else child.once('exit', report);
        }),
    );
    const first = Promise.race(exits);
    first.catch(() => undefined); // a caller that stopped waiting must not see an unhandled rejection
    return first;
  }

  /** The process ID of `service` (the server itself: the start script execs it); undefined before its start. */
  pidOf(service: ClusterService): number | undefined {
    return this.children.get(service)?.pid;
  }

  /** Whether `service`'s process runs. */
  isRunning(service: ClusterService): boolean {
    const child = this.children.get(service);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** SIGKILL: a crash or an OOM kill; nothing is flushed or handed over. */
  async kill(service: ClusterService): Promise<void> {
    const child = this.children.get(service);
    if (child) await signalAndWait(child, 'SIGKILL', 0);
  }

  /** SIGTERM (a graceful shutdown: shards and task queues handed over), SIGKILL after `graceMs`. */
  async stop(service: ClusterService, graceMs = 10_000): Promise<void> {
    const child = this.children.get(service);
    if (child) await signalAndWait(child, 'SIGTERM', graceMs);
  }

  /** Stops every service, the frontend first so clients see it go before the services behind it. */
  async stopAll(): Promise<void> {
    for (const service of ['frontend', 'worker', 'matching', 'history'] as const) await this.stop(service);
  }

  /** The path of `service`'s log. */
  logOf(service: ClusterService): string {
    return path.join(this.logDir, `${service}.log`);
  }
}
