/**
 * The fault suite: worker kills, server kills, model faults and load against a real Temporal dev server, real worker
 * processes and the scripted model. Prints a Markdown table on stdout (progress on stderr) and exits 1 when any
 * expectation broke. Not a benchmark: the timings are what this machine did, the pass/fail is what matters.
 *
 *   npm run chaos [-- --scale 0.1] [--seed 7] [--only worker-kill,load]
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { startDevServer, type DevServer } from '../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { freePort } from '../src/testing/free-port';
import { stockBundleOptions } from '../src/worker/workflow-bundle';
import { stopAllServers } from './killable-server';
import { allFailures, formatTable } from './report';
import { runChaosSuite, scaleSizes, SCENARIOS, type ScenarioName } from './suite';
import { killAllWorkers } from './worker-process';

interface Arguments {
  scale: number;
  seed: number;
  only: ScenarioName[];
}

function parseArguments(argv: string[]): Arguments {
  const value = (flag: string): string | undefined => {
    const position = argv.indexOf(flag);
    return position >= 0 ? argv[position + 1] : undefined;
  };
  const scale = Number(value('--scale') ?? 1);
  const seed = Number(value('--seed') ?? 1);
  const only = (value('--only')?.split(',') ?? [...SCENARIOS]) as ScenarioName[];
  const unknown = only.filter((name) => !SCENARIOS.includes(name));
  if (!(scale > 0) || !Number.isInteger(seed) || unknown.length > 0) {
    throw new Error(
      `usage: chaos [--scale >0] [--seed integer] [--only ${SCENARIOS.join(',')}]${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
    );
  }
  return { scale, seed, only };
}

async function main(): Promise<number> {
  const args = parseArguments(process.argv.slice(2));
  const sizes = scaleSizes(args.scale);
  const log = (line: string): void => void process.stderr.write(`[chaos] ${line}\n`);
  const started = Date.now();
  const folder = await mkdtemp(path.join(os.tmpdir(), 'chaos-'));
  let server: DevServer | undefined;
  const interrupted = (): void => {
    killAllWorkers();
    void Promise.all([server?.stop(), stopAllServers()]).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
  try {
    log('bundling the workflows');
    // The stock bundle: the workflows with their failure converter and the engine-action counter.
    const { code } = await bundleWorkflowCode({ ...stockBundleOptions(), logger: new DefaultLogger('WARN') });
    const workflowBundlePath = path.join(folder, 'workflow-bundle.js');
    await writeFile(workflowBundlePath, code);
    const port = await freePort();
    let uiPort = await freePort();
    while (uiPort === port) uiPort = await freePort();
    server = await startDevServer({ port, uiPort, searchAttributes: [...AGENT_SEARCH_ATTRIBUTES] });
    log(`dev server on ${server.address}; sizes ${JSON.stringify(sizes)}; seed ${args.seed}`);
    const reports = await runChaosSuite(
      { address: server.address, workflowBundlePath, seed: args.seed, log },
      sizes,
      args.only,
    );
    const wall = ((Date.now() - started) / 1000).toFixed(0);
    console.log(
      `Fault suite: scale ${args.scale}, seed ${args.seed}, ${wall} s wall time, on ${os.cpus().length} cores\n`,
    );
    console.log(formatTable(reports));
    const failures = allFailures(reports);
    console.log(
      failures.length === 0
        ? '\nAll expectations held.'
        : `\n${failures.length} failures:\n${failures.map((line) => `- ${line}`).join('\n')}`,
    );
    return failures.length === 0 ? 0 : 1;
  } finally {
    killAllWorkers();
    await server?.stop();
    await rm(folder, { recursive: true, force: true });
  }
}

main().then(
  // Exit explicitly: scripted hangs leave timers that would hold the process for seconds after the table.
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    killAllWorkers();
    process.exit(1);
  },
);
