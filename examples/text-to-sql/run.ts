// Asks a real model to turn a question into SQL over the sample schema, with a worker in this process.
// Usage: npx tsx examples/text-to-sql/run.ts "Which five customers spent most on paid orders?"
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient, type ReActResult } from 'durable-react-agent';
import { isServerAnswering, startDevServer } from 'durable-react-agent/testing';
import {
  AGENT_SEARCH_ATTRIBUTES,
  createAgentWorker,
  hasModelEndpoint,
  LOCAL_TEMPORAL_ADDRESS,
  readEnv,
  ToolRegistry,
  type RuntimeEnv,
} from 'durable-react-agent/worker';
import { submissionOf, TEXT_TO_SQL_CONFIG, TEXT_TO_SQL_TASK_QUEUE } from './agent';
import { SAMPLE_SCHEMA } from './schema';
import { createTextToSqlTools } from './tools';

/** Asked when the command line names no question. */
export const DEFAULT_QUESTION = 'Which five customers spent the most on paid orders, and how much did each spend?';

/** TEMPORAL_ADDRESS, else a server on localhost:7233, else an in-memory dev server that lives as long as this process. */
async function temporalAddress(env: RuntimeEnv): Promise<{ address: string; stop?: () => Promise<void> }> {
  if (env.temporalAddress) return { address: env.temporalAddress };
  if (await isServerAnswering(LOCAL_TEMPORAL_ADDRESS)) return { address: LOCAL_TEMPORAL_ADDRESS };
  const server = await startDevServer({
    namespace: env.temporalNamespace,
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
    log: console.error,
  });
  console.error(`Temporal dev server on ${server.address}; UI at ${server.uiUrl ?? 'n/a'} while this runs`);
  return server;
}

/** Runs one question through the text-to-SQL agent: a worker with its tools, a run on its task queue, the result. */
export async function askTextToSql(question: string, env: RuntimeEnv = readEnv()): Promise<ReActResult> {
  const { address, stop } = await temporalAddress(env);
  const nativeConnection = await NativeConnection.connect({ address });
  const connection = await Connection.connect({ address });
  try {
    const worker = await createAgentWorker({
      connection: nativeConnection,
      env,
      taskQueue: TEXT_TO_SQL_TASK_QUEUE,
      registry: new ToolRegistry(createTextToSqlTools(SAMPLE_SCHEMA)),
    });
    const agents = new AgentClient({
      client: new Client({ connection, namespace: env.temporalNamespace }),
      taskQueue: TEXT_TO_SQL_TASK_QUEUE,
    });
    return await worker.runUntil(async () => {
      const run = await agents.start(question, TEXT_TO_SQL_CONFIG);
      console.error(`run ${run.workflowId} started on ${address}`);
      return run.result();
    });
  } finally {
    await connection.close();
    await nativeConnection.close();
    await stop?.();
  }
}

async function main(): Promise<void> {
  const env = readEnv();
  if (!hasModelEndpoint(env)) {
    console.error('Set OPENAI_API_KEY (and OPENAI_BASE_URL for another OpenAI-compatible server) to run this example.');
    process.exitCode = 2;
    return;
  }
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const result = await askTextToSql(process.argv.slice(2).join(' ').trim() || DEFAULT_QUESTION, env);
  for (const step of result.trace.steps) {
    const action =
      step.action.type === 'tool_call' ? `${step.action.tool} ${JSON.stringify(step.action.args)}` : step.action.type;
    const observation = (step.observation ?? '').replace(/\s+/g, ' ').slice(0, 160);
    console.error(`· ${step.thought}\n  → ${action}\n  ← ${observation}`);
  }
  const submission = submissionOf(result);
  console.error(`stopped: ${result.terminationReason} (${result.trace.terminationDetail ?? 'no detail'})`);
  if (!submission) {
    console.error('No query was submitted.');
    process.exitCode = 1;
    return;
  }
  console.log(submission.query);
  console.error(`${submission.explanation} (confidence ${submission.confidence})`);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  });
}
