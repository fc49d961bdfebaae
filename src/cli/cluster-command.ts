import { startCluster } from '../dev/cluster/cluster';
import { parseCommandArgs, UsageError } from './args';
import { readEnv } from '../common/env';

type Say = (line: string) => void;

/**
 * `durable-react-agent cluster`: a throwaway Temporal cluster in production shape (PostgreSQL, one process per
 * service) until Ctrl-C, then everything is stopped and its folder removed (kept with --keep).
 */
export async function clusterCommand(argv: string[], say: Say, untilInterrupted: () => Promise<void>): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      shards: { type: 'string', default: '4' },
      port: { type: 'string' },
      namespace: { type: 'string', default: readEnv().temporalNamespace },
      keep: { type: 'boolean', default: false },
    },
    { positionals: false },
  );
  const shards = Number(values.shards);
  if (!Number.isInteger(shards) || shards < 1)
    throw new UsageError(`--shards expects a positive integer, got "${values.shards}"`);
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 32768))
    throw new UsageError(`--port expects a port below 32768, got "${values.port}"`);
  const cluster = await startCluster({
    shards,
    ...(port !== undefined ? { port } : {}),
    namespace: values.namespace,
    keepFiles: values.keep,
    log: say,
  });
  say(`Temporal cluster: ${cluster.address} (namespace ${cluster.namespace}, ${cluster.shards} history shards)`);
  say(`PostgreSQL: 127.0.0.1:${cluster.postgres.port}; data and logs in ${cluster.dir}`);
  say(`Workers: TEMPORAL_ADDRESS=${cluster.address} npx durable-react-agent worker. Press Ctrl-C to stop.`);
  await untilInterrupted();
  say('stopping the cluster…');
  await cluster.stop();
  if (values.keep) say(`kept ${cluster.dir}`);
  return 0;
}
