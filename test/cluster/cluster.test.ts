import { execFile } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClusterSetupError, resolvePostgresPrograms, resolveServerPrograms } from '../../src/dev/cluster/binaries';
import { startCluster, type TemporalCluster } from '../../src/dev/cluster/cluster';
import { freePort } from '../../src/testing/free-port';
import { CLUSTER_SERVICES, DEPLOY_TEMPORAL_DIR } from '../../src/dev/cluster/services';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';

const run = promisify(execFile);

/** Command lines of this machine's processes that mention `text`. */
function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text)) found.push(cmdline);
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

describe('the production-shape cluster (npm run cluster)', () => {
  let cluster: TemporalCluster;
  let connection: Connection;
  beforeAll(async () => {
    cluster = await startCluster({ shards: 3, port: await freePort() });
    connection = await Connection.connect({ address: cluster.address });
  });
  afterAll(async () => {
    await connection?.close();
    await cluster?.stop();
  });

  it('runs each service as its own process on PostgreSQL, with the shards asked for', async () => {
    const pids = CLUSTER_SERVICES.map((service) => cluster.services.pidOf(service));
    expect(new Set(pids).size).toBe(CLUSTER_SERVICES.length);
    CLUSTER_SERVICES.forEach((service, index) => {
      const cmdline = readFileSync(`/proc/${pids[index]}/cmdline`, 'utf8').split('\0').filter(Boolean);
      expect(cmdline.slice(-3), service).toEqual(['start', '--service', service]);
    });
    const info = await connection.workflowService.getClusterInfo({});
    expect(info.historyShardCount).toBe(3);
    expect(info.persistenceStore).toBe('postgres12');
    expect(info.visibilityStore).toBe('postgres12');
    expect(info.serverVersion).toBe('1.29.1');
  });

  it('has the namespace and the agent’s search attributes registered', async () => {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({
      namespace: cluster.namespace,
    });
    for (const { name } of AGENT_SEARCH_ATTRIBUTES) expect(Object.keys(customAttributes ?? {})).toContain(name);
  });

  it('runs the set-up scripts idempotently: a second run on the set-up cluster succeeds', async () => {
    const env = { ...process.env, ...(await scriptEnv(cluster)) };
    for (const script of ['setup-schema.sh', 'create-namespace.sh']) {
      const { stdout } = await run('sh', [path.join(DEPLOY_TEMPORAL_DIR, script)], { env });
      expect(stdout, script).toMatch(/is set up|exists/);
    }
  });
});

/** The environment the cluster gave its scripts, read back from a service's /proc/<pid>/environ. */
async function scriptEnv(cluster: TemporalCluster): Promise<Record<string, string>> {
  const pid = cluster.services.pidOf('frontend');
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  const env = Object.fromEntries(
    entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  const { server, sqlTool } = await resolveServerPrograms();
  expect(env.TEMPORAL_SERVER).toBe(server);
  return { ...env, SQL_TOOL: sqlTool };
}

describe('starting and stopping a cluster', () => {
  it('stop() ends every process it started and removes its folder', async () => {
    const cluster = await startCluster({ shards: 1, port: await freePort() });
    const dir = cluster.dir;
    const servers = CLUSTER_SERVICES.map((service) => cluster.services.pidOf(service));
    expect(processesMentioning(dir).length).toBeGreaterThan(0); // PostgreSQL's data folder is in it
    await cluster.stop();
    expect(processesMentioning(dir)).toEqual([]);
    for (const pid of servers) expect(existsSync(`/proc/${pid}`), `server process ${pid}`).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('names what is missing when PG_BIN_DIR points at no PostgreSQL', async () => {
    await expect(resolvePostgresPrograms({ env: { ...process.env, PG_BIN_DIR: '/nonexistent' } })).rejects.toThrow(
      new ClusterSetupError('PG_BIN_DIR is "/nonexistent", which has no initdb, postgres and pg_isready.'),
    );
  });
});
