/**
 * History growth per step (issue 4 / P3): runs scripted agents of 1, 10, 100 and 1000 iterations on an embedded dev
 * server and prints the Temporal history they leave, summed over the continue-as-new chain. Growth must be linear:
 * bytes per step roughly constant, and no single run near the server's 4 MiB suggestion. Not a test: asserts nothing.
 *
 *   npm run bench:history [-- --max 100]
 */
import { Client, Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import path from 'node:path';
import { AgentClient } from '../src/client';
import { startDevServer } from '../src/dev-server';
import { chainRunIds } from '../src/run-chain';
import { AGENT_SEARCH_ATTRIBUTES } from '../src/shared/search-attributes';
import { startScriptedModel, type ScriptedResponder } from '../src/testing/scripted-model';
import { createAgentWorker, createOpenAIClient } from '../src/worker';

const maxArg = process.argv.indexOf('--max');
const max = maxArg > 0 ? Number(process.argv[maxArg + 1]) : 1000;
const SIZES = [1, 10, 100, 1000].filter((size) => size <= max);

function counter(iterations: number): ScriptedResponder {
  return (_request, index) =>
    index < iterations
      ? { thought: `Step ${index + 1}: one more term for the running total.`, toolCalls: [{ name: 'calculator', args: { expression: `${index} + 1` } }] }
      : { answer: `Counted to ${iterations}.` };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const server = await startDevServer({ searchAttributes: [...AGENT_SEARCH_ATTRIBUTES] });
  const model = await startScriptedModel();
  const { code } = await bundleWorkflowCode({ workflowsPath: path.resolve(__dirname, '../src/workflows/index.ts'), logger: new DefaultLogger('WARN') });
  const nativeConnection = await NativeConnection.connect({ address: server.address });
  const connection = await Connection.connect({ address: server.address });
  const worker = await createAgentWorker({
    connection: nativeConnection,
    taskQueue: 'bench-history',
    openai: createOpenAIClient({ baseURL: model.baseURL }),
    workflowBundle: { code },
  });
  const running = worker.run();
  const client = new Client({ connection });
  const agents = new AgentClient({ client, taskQueue: 'bench-history' });
  const rows: string[] = [];
  try {
    for (const steps of SIZES) {
      model.script(`bench-${steps}`, counter(steps));
      const started = Date.now();
      const run = await agents.start(`count to ${steps}`, { model: `bench-${steps}`, maxIterations: steps + 1 });
      await client.workflow.getHandle(run.workflowId).result();
      const seconds = (Date.now() - started) / 1000;
      let total = 0;
      let largest = 0;
      const runIds = await chainRunIds(client, run.workflowId);
      for (const runId of runIds) {
        const history = await client.workflow.getHandle(run.workflowId, runId).fetchHistory();
        const bytes = temporal.api.history.v1.History.encode(history).finish().byteLength;
        total += bytes;
        largest = Math.max(largest, bytes);
      }
      rows.push(
        `| ${steps} | ${runIds.length} | ${total} | ${Math.round(total / steps)} | ${largest} | ${seconds.toFixed(1)} |`,
      );
      console.error(`measured ${steps} steps`);
    }
  } finally {
    worker.shutdown();
    await running;
    await nativeConnection.close();
    await connection.close();
    await model.close();
    await server.stop();
  }
  console.log('| steps | runs in chain | history bytes (all runs) | bytes per step | largest run | wall s |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
