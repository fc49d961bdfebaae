/**
 * History growth per step (issue 4 / P3): runs scripted agents of 1, 10, 100 and 1000 iterations on an embedded dev
 * server and prints the Temporal history they leave, summed over the continue-as-new chain. Growth must be linear:
 * bytes per step roughly constant, and no single run near the server's 4 MiB suggestion. Not a test: asserts nothing.
 *
 *   npm run bench:history [-- --max 100]
 */
import { temporal } from '@temporalio/proto';
import { chainRunIds } from '../src/run-chain';
import { type ScriptedResponder } from '../src/testing/scripted-model';
import { startLocalStack } from '../test/support/local-stack';

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
  const stack = await startLocalStack({ taskQueue: 'bench-history' });
  const { model, client, agents } = stack;
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
    await stack.close();
  }
  console.log('| steps | runs in chain | history bytes (all runs) | bytes per step | largest run | wall s |');
  console.log('| ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of rows) console.log(row);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
