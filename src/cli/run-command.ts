import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { AgentClient, type AgentRunHandle } from '../client/agent-client';
import { dataConverterFromEnv } from '../common/data-converter';
import { DEMO_MODEL, DEMO_QUERY, demoResponder } from './demo';
import { isServerAnswering, PREFERRED_UI_PORT, startDevServer } from '../dev/dev-server';
import { ensureSearchAttributes } from '../dev/search-attributes';
import { AGENT_SEARCH_ATTRIBUTES } from '../shared/search-attributes';
import { hasModelEndpoint, LOCAL_TEMPORAL_ADDRESS, readEnv, type RuntimeEnv } from '../common/env';
import { startScriptedModel } from '../testing/scripted-model';
import { readWorkerEnv } from '../worker/env';
import {
  createAgentWorker,
  createOpenAIClient,
  prebuiltWorkflowBundle,
  type AgentWorkerOptions,
} from '../worker/index';
import { cliIdentity, DEV_SERVER_DB, parseRunArgs, UsageError, type RunOptions } from './args';
import { watchPending } from './pending-watcher';
import { createRunDecisions } from './run-decisions';
import { missedLines, printEvents, type PrintedTrace } from '../client/event-printer';
import { formatUsd } from '../shared/cost';

type Say = (line: string) => void;
export type Cleanup = () => Promise<unknown>;

/** Where a dev server on localhost:7233 serves the Temporal UI. */
const LOCAL_UI_URL = `http://127.0.0.1:${PREFERRED_UI_PORT}`;

/** Uses TEMPORAL_ADDRESS, else a server on localhost:7233, else starts the embedded dev server. */
export async function connectServer(
  env: RuntimeEnv,
  say: Say,
  cleanups: Cleanup[],
): Promise<{ address: string; uiUrl?: string }> {
  if (env.temporalAddress) return { address: env.temporalAddress };
  if (await isServerAnswering(LOCAL_TEMPORAL_ADDRESS)) {
    // A dev server there (`durable-react-agent server`, `temporal server start-dev`) serves its UI beside it.
    const uiUrl = await fetch(LOCAL_UI_URL, { signal: AbortSignal.timeout(1000) }).then(
      (response) => (response.ok ? LOCAL_UI_URL : undefined),
      () => undefined,
    );
    say(`Using the Temporal server already answering on ${LOCAL_TEMPORAL_ADDRESS}${uiUrl ? `, UI ${uiUrl}` : ''}`);
    return { address: LOCAL_TEMPORAL_ADDRESS, ...(uiUrl ? { uiUrl } : {}) };
  }
  say('Starting the embedded Temporal dev server…');
  const server = await startDevServer({
    dbFile: DEV_SERVER_DB,
    namespace: env.temporalNamespace,
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
    log: say,
  });
  cleanups.push(() => server.stop());
  await ensureSearchAttributes(server.address, env.temporalNamespace);
  say(`Temporal dev server on ${server.address}, state in ${DEV_SERVER_DB}`);
  if (server.uiUrl)
    say(`Temporal UI: ${server.uiUrl}  (up while this command runs; \`durable-react-agent server\` keeps one running)`);
  return { address: server.address, uiUrl: server.uiUrl };
}

/**
 * A worker in this process on `options.taskQueue` (the prebuilt bundle unless encryption needs its own), stopped and
 * disconnected by the cleanups.
 */
export async function startOwnWorker(
  address: string,
  env: RuntimeEnv,
  cleanups: Cleanup[],
  options: Omit<AgentWorkerOptions, 'connection' | 'env'>,
): Promise<void> {
  const nativeConnection = await NativeConnection.connect({ address });
  cleanups.push(() => nativeConnection.close());
  // Encryption bundles its failure converter into the workflow code, so only a plain worker takes the prebuilt bundle.
  const bundle = env.payloadEncryptionKeys ? undefined : prebuiltWorkflowBundle();
  const worker = await createAgentWorker({
    connection: nativeConnection,
    env,
    ...options,
    ...(bundle ? { workflowBundle: bundle } : {}),
  });
  const running = worker.run();
  cleanups.push(async () => {
    worker.shutdown();
    await running;
  });
}

/** A Temporal client with the environment's namespace and payload codec, closed by the cleanups. */
export async function connectClient(address: string, env: RuntimeEnv, cleanups: Cleanup[]): Promise<Client> {
  const connection = await Connection.connect({ address });
  cleanups.push(() => connection.close());
  return new Client({ connection, namespace: env.temporalNamespace, dataConverter: dataConverterFromEnv(env) });
}

/** `durable-react-agent run`: start a run, follow its trace on stderr, print the answer (or --json) on stdout. */
export async function runCommand(argv: string[], out: Say, say: Say): Promise<number> {
  const options = parseRunArgs(argv);
  AgentClient.validateConfig(options.config); // exit 2 before anything starts
  const query = options.query || DEMO_QUERY;
  return followRun(options, out, say, async (agents, demoModel) => {
    const run = await agents.start(query, demoModel ? { ...options.config, model: demoModel } : options.config);
    say(`Run ${run.workflowId} started on task queue "${agents.taskQueue}"`);
    say(`Query: ${query}`);
    return run;
  });
}

/** What `run`, `fork` and `continue` share: their own worker (unless --no-worker), a model, a terminal to decide on. */
export type StackOptions = Pick<RunOptions, 'json' | 'worker' | 'demo' | 'toolsRoot' | 'interactive' | 'taskQueue'> & {
  /** The Temporal server to use (`--address`), before TEMPORAL_ADDRESS. */
  address?: string | undefined;
};

/**
 * Sets up what a run needs (a model endpoint or the scripted demo model, a Temporal server, a worker, a client), lets
 * `start` start the run (given the demo model's name in demo mode), follows its trace on stderr and prints its answer
 * (or --json) on stdout.
 */
export async function followRun(
  options: StackOptions,
  out: Say,
  say: Say,
  start: (agents: AgentClient, demoModel: string | undefined) => Promise<AgentRunHandle>,
): Promise<number> {
  const env = { ...readEnv(), ...(options.address ? { temporalAddress: options.address } : {}) };
  let demoModel: string | undefined;
  const cleanups: Cleanup[] = [];
  // Each cleanup runs once, newest first, whether the run ends or the user presses Ctrl-C.
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  // Set once this process's own worker serves a started run on a queue of its own, which nothing serves after it.
  let ownQueue: { taskQueue: string; workflowId: string } | undefined;
  const interrupted = () => {
    say('Interrupted: stopping this process; the run itself stays durable on the Temporal server.');
    if (ownQueue) {
      say(
        `No worker serves ${ownQueue.workflowId} now: its task queue "${ownQueue.taskQueue}" was this process's own. ` +
          `To go on with it: TEMPORAL_TASK_QUEUE=${ownQueue.taskQueue} npx durable-react-agent worker`,
      );
    }
    void cleanUp().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  try {
    let openai = createOpenAIClient({ apiKey: env.openaiApiKey, baseURL: env.openaiBaseURL });
    // With --no-worker another worker makes the model calls: its endpoint is its own business.
    if (!hasModelEndpoint(env) && (options.worker || options.demo)) {
      if (!options.demo) {
        throw new UsageError(
          'No model endpoint: set OPENAI_API_KEY (and OPENAI_BASE_URL for other OpenAI-compatible servers), or use --demo',
        );
      }
      const scripted = await startScriptedModel();
      cleanups.push(() => scripted.close());
      scripted.script(DEMO_MODEL, demoResponder);
      openai = createOpenAIClient({ baseURL: scripted.baseURL });
      demoModel = DEMO_MODEL;
      say(`DEMO MODE: no OPENAI_API_KEY or OPENAI_BASE_URL is set, so the model is the project's scripted`);
      say(
        `OpenAI-compatible server on ${scripted.baseURL} (no real LLM). Everything else is real: Temporal, the worker, the tools.`,
      );
    }
    // The SDK's native side prints its own log lines to stdout unless forwarded: stdout carries the answer, so
    // they go through the logger, to stderr.
    Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { forward: {} } } });
    const server = await connectServer(env, say, cleanups);
    // A run with its own worker gets a queue of its own, unless told to join one: on the shared default queue another
    // worker (without this --root, this model) could pick the run up, and this worker would serve other runs.
    const ownQueueName = options.worker ? `run-${randomUUID()}` : undefined;
    const taskQueue = options.taskQueue ?? env.explicitTaskQueue ?? ownQueueName ?? env.taskQueue;
    if (options.worker) {
      // The `worker` command's settings (MCP servers, remote tools, approval keys, prices, model-call tuning), read
      // and checked the same way: a run with its own worker behaves as one on a deployed worker would.
      const worker = readWorkerEnv();
      await startOwnWorker(server.address, env, cleanups, {
        taskQueue,
        openai,
        toolsRoot: options.toolsRoot,
        modelCalls: worker.modelCalls,
        ...(worker.runAhead !== undefined ? { runAhead: worker.runAhead } : {}),
        ...(worker.mcpServers ? { mcpServers: worker.mcpServers } : {}),
        ...(worker.remoteTools ? { remoteTools: worker.remoteTools } : {}),
        ...(worker.approvalKeys ? { approvalKeys: worker.approvalKeys } : {}),
        ...(worker.prices ? { prices: worker.prices } : {}),
      });
    }
    const client = await connectClient(server.address, env, cleanups);
    const agents = new AgentClient({ client, taskQueue, ...cliIdentity(undefined, undefined) });
    const run = await start(agents, demoModel);
    if (taskQueue === ownQueueName) ownQueue = { taskQueue, workflowId: run.workflowId };
    if (server.uiUrl) say(`  ${server.uiUrl}/namespaces/${env.temporalNamespace}/workflows/${run.workflowId}`);
    const follower = printEvents((signal) => run.events({ signal }), say);
    const isDefault = ['localhost:7233', '127.0.0.1:7233'].includes(server.address);
    const decisions = createRunDecisions(
      agents,
      run.workflowId,
      options.interactive,
      say,
      isDefault ? undefined : server.address,
    );
    const watcher = watchPending(
      () => agents.handle(run.workflowId).listPending(),
      (item) => decisions.handle(item),
    );
    // The watcher and the event stream finish their calls before the cleanups close the connection.
    const stopWatching = async (): Promise<PrintedTrace> => {
      decisions.close();
      const [, shown] = await Promise.all([watcher.stop(), follower.stop()]);
      return shown;
    };
    const result = await run.result().catch(async (error: unknown) => {
      await stopWatching();
      throw error;
    });
    // The live trace may stop short of the end (the stream was abandoned after its grace): the rest comes from the
    // result, so the trace always shows the final answer.
    for (const line of missedLines(result.trace, await stopWatching())) say(line);
    say(
      `Finished: ${result.terminationReason} after ${result.trace.totalIterations} iterations, ` +
        `${result.tokenUsage.totalTokens} tokens, ${result.executionTimeMs} ms` +
        // What it cost, in brief: `durable-react-agent cost <workflowId>` has the ledger.
        (result.trace.cost
          ? `, ${formatUsd(result.trace.cost.usd)}, ${result.trace.cost.engineActionsTotal} engine actions`
          : ''),
    );
    out(
      options.json ? JSON.stringify(result) : (result.finalAnswer ?? `(no final answer: ${result.terminationReason})`),
    );
    return 0;
  } finally {
    process.off('SIGINT', interrupted);
    process.off('SIGTERM', interrupted);
    await cleanUp();
  }
}
