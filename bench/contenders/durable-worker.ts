/**
 * The worker process of the durable-react-agent contender: the stock agent worker with the benchmark tools. It runs
 * in a process of its own, as in production, so its memory can be read on its own (P5): compiled to JavaScript first
 * (durable-stack.ts), never through a TypeScript loader, whose own memory would land on the worker's figures.
 * Stops on SIGTERM.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { z } from 'zod';
import { defineTool } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { createAgentWorker, createOpenAIClient } from '../../src/worker';
import { NOOP_DESCRIPTION } from '../scenario';
import { createFloorActivities } from './sdk-floor-activities';

export interface WorkerJob {
  address: string;
  taskQueue: string;
  baseURL: string;
  /** The sticky workflow cache's bound; runs beyond it are evicted and replayed from history when they wake. */
  maxCachedWorkflows: number;
  /** `agent` (default): our agent worker. `sdk-floor`: a bare Temporal worker running sdk-floor-workflow.ts. */
  workload?: 'agent' | 'sdk-floor';
  /** The bundle `npm run build` made (dist/workflow-bundle.js); paths are absolute, this file runs compiled elsewhere. */
  workflowBundlePath: string;
  /** sdk-floor-workflow.ts, which the SDK bundles at start. */
  floorWorkflowPath: string;
  /** `local`: the agent worker makes its runs' model calls as local activities (the plugin's `modelCalls.local`). */
  modelCalls?: 'activity' | 'local';
}

const schema = z.object({ step: z.number().int().optional() });

export function benchRegistry(): ToolRegistry {
  return new ToolRegistry([
    defineTool({
      name: 'noop',
      description: NOOP_DESCRIPTION,
      category: 'bench',
      schema,
      handler: () => 'ok',
      readOnly: true,
    }),
    defineTool({ name: 'noop_effect', description: NOOP_DESCRIPTION, category: 'bench', schema, handler: () => 'ok' }),
    defineTool({
      name: 'noop_remote',
      description: NOOP_DESCRIPTION,
      category: 'bench',
      schema,
      handler: () => 'ok',
      local: false,
    }),
    // Returns when it started, so the client can measure decision-to-activity latency from the trace (P4).
    defineTool({
      name: 'guarded',
      description: NOOP_DESCRIPTION,
      category: 'bench',
      schema,
      handler: () => ({ startedAt: Date.now() }),
      confirm: 'always',
    }),
  ]);
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2] ?? '{}') as WorkerJob;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: job.address });
  const openai = createOpenAIClient({ baseURL: job.baseURL });
  const worker =
    job.workload === 'sdk-floor'
      ? await Worker.create({
          connection,
          taskQueue: job.taskQueue,
          workflowsPath: job.floorWorkflowPath,
          activities: createFloorActivities(openai),
          maxCachedWorkflows: job.maxCachedWorkflows,
        })
      : await createAgentWorker({
          connection,
          taskQueue: job.taskQueue,
          registry: benchRegistry(),
          openai,
          // The bundle `npm run build` made (the bench runs it first), as a deployed worker would load it: no webpack here.
          workflowBundle: { codePath: job.workflowBundlePath },
          workerOptions: { maxCachedWorkflows: job.maxCachedWorkflows },
          modelCalls: { local: job.modelCalls === 'local' },
        });
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => worker.shutdown());
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
