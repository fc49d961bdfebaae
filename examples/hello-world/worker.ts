// The worker: runs the agent's workflow, its model calls and your tool. The model is the OpenAI-compatible endpoint
// that OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL name.
import { NativeConnection, Worker } from '@temporalio/worker';
import { DurableAgentPlugin, readEnv } from 'durable-react-agent/worker';
import { wordCount } from './tools.js';

const env = readEnv(); // TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE, OPENAI_*
const worker = await Worker.create({
  connection: await NativeConnection.connect({ address: env.temporalAddress ?? 'localhost:7233' }),
  taskQueue: env.taskQueue,
  plugins: [new DurableAgentPlugin({ tools: [wordCount] })],
});
await worker.run(); // until Ctrl-C
