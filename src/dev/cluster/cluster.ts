/**
 * A throwaway Temporal cluster in production shape on this machine, without Docker: PostgreSQL in a temp folder,
 * the schema set up by Temporal's schema tool, the four services as separate processes with several history
 * shards, the namespace and the agent's search attributes registered. The schema, namespace and search-attribute
 * steps run the very scripts docker-compose.yml runs (deploy/), so what is tested here is what compose deploys.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { canConnectTcp, choosePort } from '../dev-server';
import { resolveTemporalCli } from '../provision';
import { resolvePostgresPrograms, resolveServerPrograms } from './binaries';
import { ClusterSetupError } from './errors';
import { ThrowawayPostgres } from './postgres';
import { runToEnd, waitFor } from './process';
import { CLUSTER_SERVICES, DEPLOY_TEMPORAL_DIR, ServiceProcesses, type ClusterService } from './services';
import { errorMessage } from '../../shared/errors';

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** History shards, fixed for the cluster's life (default 4). */
  shards?: number;
  /** The frontend's port (default 7233 when free, else a free one). */
  port?: number;
  namespace?: string;
  /** How long finished runs stay readable (default 168h). */
  retention?: string;
  /** Progress lines (provisioning, each step). */
  log?: (line: string) => void;
  /** Keep the folder (database, logs) after stop, for a post-mortem. */
  keepFiles?: boolean;
}

/** A running cluster. */
export interface TemporalCluster {
  /** The frontend, for clients and workers. */
  address: string;
  namespace: string;
  shards: number;
  /** The folder holding PostgreSQL's data and every process's log. */
  dir: string;
  postgres: ThrowawayPostgres;
  services: ServiceProcesses;
  /** Starts a killed or stopped service again and waits until the cluster serves runs. */
  restart(service: ClusterService): Promise<void>;
  /** Waits until a run can be started and terminated (history, matching and persistence all answer). */
  waitUntilServing(timeoutMs?: number): Promise<void>;
  /** Stops the services, then PostgreSQL, and removes the folder (unless `keepFiles`). */
  stop(): Promise<void>;
}

const DB_USER = 'temporal';

/** The listeners: gRPC (and the frontend's HTTP) ports, PostgreSQL, and each service's membership ("ring") port. */
const PORTS = ['frontend', 'http', 'postgres', 'history', 'matching', 'worker'] as const;
const RING_PORTS = ['frontendRing', 'historyRing', 'matchingRing', 'workerRing'] as const;
type PortName = (typeof PORTS)[number] | (typeof RING_PORTS)[number];

/** Distinct free loopback ports for every listener, the frontend's `preferred` when it is free. */
async function choosePorts(preferred?: number): Promise<Record<PortName, number>> {
  const names = [...PORTS, ...RING_PORTS];
  const ports: number[] = [];
  if (preferred !== undefined && (await choosePort(preferred)) === preferred) ports.push(preferred);
  while (ports.length < names.length) {
    // Below 32768: the PostgreSQL schema keeps service ports in a smallint (cluster_membership), and a service whose
    // port does not fit dies at start; the OS's own free ports lie above it, so candidates come from 10000-32767.
    const candidate = 10_000 + randomInt(22_768);
    if (!ports.includes(candidate) && (await choosePort(candidate)) === candidate) ports.push(candidate);
  }
  return Object.fromEntries(names.map((name, index) => [name, ports[index] ?? 0])) as Record<PortName, number>;
}

/** Waits until something accepts TCP connections on loopback `port`. */
async function waitForPort(port: number, timeoutMs: number, what: string): Promise<void> {
  await waitFor(
    () => canConnectTcp('127.0.0.1', port, 1000),
    timeoutMs,
    undefined,
    () => `${what} does not listen on port ${port}`,
  );
}

/** Runs one of the deploy/ setup scripts; a failure throws with what it printed last. */
async function runScript(script: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<void> {
  const { code, output } = await runToEnd('sh', [script], { env, signal });
  if (code !== 0) {
    const tail = output.trim().split('\n').slice(-4).join(' | ');
    throw new ClusterSetupError(`${path.relative(process.cwd(), script)} failed (${code}): ${tail}`);
  }
}

/** Starts a cluster; on any failure, whatever already started is stopped again. */
export async function startCluster(options: ClusterOptions = {}): Promise<TemporalCluster> {
  const { shards = 4, namespace = 'default', retention = '168h', log = () => undefined } = options;
  const [server, postgresPrograms, cli] = await Promise.all([
    resolveServerPrograms({ log }),
    resolvePostgresPrograms({ log }),
    resolveTemporalCli({ log }),
  ]);
  if (cli.type !== 'existing-path') {
    throw new ClusterSetupError('The cluster needs the Temporal CLI on disk: install Go so it can be built.');
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'dra-cluster-'));
  // mkdtemp makes it private (0700); PostgreSQL, run as its own user when we are root, must reach its folder inside.
  await chmod(dir, 0o711);
  const ports = await choosePorts(options.port ?? 7233);
  const password = randomUUID();
  const address = `127.0.0.1:${ports.frontend}`;
  // What config/production.yaml and the setup scripts read.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(ports.postgres),
    POSTGRES_USER: DB_USER,
    POSTGRES_PWD: password,
    NUM_HISTORY_SHARDS: String(shards),
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.http),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendRing),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyRing),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingRing),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerRing),
    SQL_TOOL: server.sqlTool,
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_NAMESPACE_RETENTION: retention,
    PATH: `${path.dirname(cli.path)}${path.delimiter}${process.env.PATH ?? ''}`,
  };
  const services = new ServiceProcesses(server.server, env, path.join(dir, 'logs'));
  let postgres: ThrowawayPostgres | undefined;
  const stop = async (): Promise<void> => {
    await services.stopAll();
    await postgres?.stop();
    if (!options.keepFiles) await rm(dir, { recursive: true, force: true });
  };
  try {
    log(`PostgreSQL on 127.0.0.1:${ports.postgres} (${dir})`);
    postgres = await ThrowawayPostgres.start({
      programs: postgresPrograms,
      dir: path.join(dir, 'postgres'),
      port: ports.postgres,
      user: DB_USER,
      password,
    });
    log('databases temporal and temporal_visibility (deploy/temporal/setup-schema.sh)');
    await runScript(path.join(DEPLOY_TEMPORAL_DIR, 'setup-schema.sh'), env);
    log(`services ${CLUSTER_SERVICES.join(', ')} with ${shards} history shards`);
    // History first, alone: each service writes the cluster's metadata on its first start, and on a fresh database
    // concurrent first writes conflict and fail one of them ("failed to initialize current cluster metadata").
    await services.start('history');
    await Promise.race([waitForPort(ports.history, 60_000, 'the history service'), services.firstExit()]);
    for (const service of CLUSTER_SERVICES.filter((name) => name !== 'history')) await services.start(service);
    log(`namespace ${namespace} and the search attributes (deploy/)`);
    // The scripts wait minutes for a server that is still coming up; a service that died will never come up, and
    // the script still waiting for it is ended.
    const died = services.firstExit();
    const scripts = new AbortController();
    try {
      for (const script of ['create-namespace.sh', path.join('..', 'register-search-attributes.sh')])
        await Promise.race([runScript(path.join(DEPLOY_TEMPORAL_DIR, script), env, scripts.signal), died]);
    } finally {
      scripts.abort();
    }
    const cluster: TemporalCluster = {
      address,
      namespace,
      shards,
      dir,
      postgres,
      services,
      waitUntilServing: (timeoutMs = 90_000) => waitUntilServing(address, namespace, services, timeoutMs),
      async restart(service) {
        await services.start(service);
        await cluster.waitUntilServing();
      },
      stop,
    };
    await cluster.waitUntilServing();
    log(`serving on ${address}`);
    return cluster;
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}

/** Starts and terminates a probe run until that works: every service on a run's path answers. */
async function waitUntilServing(
  address: string,
  namespace: string,
  services: ServiceProcesses,
  timeoutMs: number,
): Promise<void> {
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace });
  let last = '';
  try {
    const probe = async (): Promise<boolean> => {
      try {
        const handle = await client.workflow.start('clusterProbe', {
          taskQueue: 'cluster-probe',
          workflowId: `cluster-probe-${randomUUID()}`,
          workflowExecutionTimeout: '1 minute',
        });
        await handle.terminate('probe');
        // Starting and terminating touch history and persistence only; describing the queue is matching's to answer.
        await connection.workflowService.describeTaskQueue({
          namespace,
          taskQueue: { name: 'cluster-probe' },
          taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        });
        return true;
      } catch (error) {
        last = errorMessage(error);
        return false;
      }
    };
    const stopped = CLUSTER_SERVICES.filter((service) => !services.isRunning(service));
    if (stopped.length > 0) throw new ClusterSetupError(`not running: ${stopped.join(', ')}`);
    await waitFor(probe, timeoutMs, undefined, () => `the cluster on ${address} does not serve runs: ${last}`);
  } finally {
    await connection.close();
  }
}
