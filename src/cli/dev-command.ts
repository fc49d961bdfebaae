import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, watch } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { AgentClient } from '../client/agent-client';
import { signerFromEnv } from '../common/decision-signing';
import { hasModelEndpoint, readEnv } from '../common/env';
import { startInbox } from '../inbox';
import { startScriptedModel } from '../testing/scripted-model';
import type { ScriptedResponder } from '../testing/scripted-turn';
import { importUserModule } from '../worker/tools/tools-module';
import { readWorkerEnv } from '../worker/env';
import { cliIdentity, parseCommandArgs, portFlag, UsageError } from './args';
import { demoResponder } from './demo';
import { connectServer, type Cleanup } from './run-command';
import { errorMessage } from '../shared/errors';

type Say = (line: string) => void;

/** A burst of saves (an editor writes a file and its backup) restarts the worker once. */
const SETTLE_MS = 300;
/** The files whose change restarts the worker: code and data a tools module may import. */
const SOURCE_FILE = /\.([cm]?[jt]sx?|json)$/;

/** The model script's responder: its `script` export, else a default export that is one. */
async function loadModelScript(file: string): Promise<ScriptedResponder> {
  const loaded = await importUserModule(file, 'model script');
  const script = loaded.script ?? loaded.default;
  if (typeof script !== 'function')
    throw new UsageError(
      `${file} exports no \`script\`: export one ScriptedResponder (request => a thought with tool calls, or an answer)`,
    );
  return script as ScriptedResponder;
}

/**
 * The `worker` command in a child process of its own, so a change to the tools is a fresh import (Node keeps every
 * module it imported for the life of a process) and a tools module that throws stops that child, not the dev loop.
 * The child has a process group of its own: a terminal's Ctrl-C reaches only `dev`, which stops the child once,
 * gracefully (the SDK's runtime takes a second SIGINT as "stop now").
 */
class WorkerProcess {
  private child: ChildProcess | undefined;
  private stopping = false;
  private disposed = false;
  private restarts = Promise.resolve();
  /** Whether the worker polls its queue now, for the summary `dev` prints. */
  running = false;

  constructor(
    private readonly toolsModule: string | undefined,
    private readonly env: NodeJS.ProcessEnv,
    private readonly say: Say,
    private readonly graceMs: number,
  ) {}

  /** Starts the worker; resolves once it polls its task queue, or rejects with what it said before it exited. */
  start(): Promise<void> {
    if (this.disposed) return Promise.resolve();
    const args = this.toolsModule ? ['--tools-module', this.toolsModule] : [];
    const child = spawn(process.execPath, [path.join(__dirname, 'main.js'), 'worker', ...args], {
      env: this.env,
      stdio: ['ignore', 'inherit', 'pipe'],
      detached: true,
    });
    this.child = child;
    // Its own process group outlives `dev` unless ended with it: a crash of `dev` must not leave it polling.
    const reap = () => child.kill('SIGKILL');
    process.once('exit', reap);
    child.once('exit', () => process.off('exit', reap));
    return new Promise((resolve, reject) => {
      let lastError: string | undefined;
      child.once('error', reject); // it could not be spawned at all
      createInterface({ input: child.stderr }).on('line', (line) => {
        process.stderr.write(`${line}\n`);
        if (line.startsWith('error: ')) lastError = line.slice('error: '.length);
        if (line.startsWith('worker polling task queue')) {
          this.running = true;
          resolve();
        }
      });
      child.once('exit', (code, signal) => {
        this.running = false;
        if (this.child === child) this.child = undefined;
        if (this.stopping || this.disposed) return resolve();
        const reason = lastError ?? `exit ${code ?? signal}`;
        reject(new Error(reason));
        const module = this.toolsModule;
        this.say(
          `worker stopped: ${reason}${module ? `\nIt starts again when ${module} or a file beside it changes.` : ''}`,
        );
      });
    });
  }

  /**
   * Stops the worker gracefully (SIGINT: in-flight activities finish first) and waits for it to exit; one still there
   * well after its grace time is killed.
   */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    this.stopping = true;
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const kill = setTimeout(() => child.kill('SIGKILL'), this.graceMs + 5_000);
    await exited;
    clearTimeout(kill);
    this.stopping = false;
  }

  /** Stops and starts the worker, one restart at a time; a failed start has said why and waits for the next change. */
  restart(why: string): Promise<void> {
    this.restarts = this.restarts.then(async () => {
      if (this.disposed) return;
      this.say(`${why}: restarting the worker`);
      await this.stop();
      await this.start().then(
        () => void (this.disposed || this.say('worker restarted')),
        () => undefined,
      );
    });
    return this.restarts;
  }

  /** Stops the worker for good: a restart under way finishes first, and none starts after. */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.restarts;
    await this.stop();
  }
}

/**
 * `durable-react-agent dev`: the whole loop on one machine in one command. It starts (or reuses) the Temporal dev
 * server, serves a worker with the user's tools module (TypeScript accepted) on the shared task queue, the approval
 * inbox, and, when no model endpoint is set, the scripted model (the model script's `script`, else the demo's), then
 * prints where each is. The worker restarts when the tools module or a file beside it changes.
 */
export async function devCommand(argv: string[], say: Say, untilInterrupted: () => Promise<void>): Promise<number> {
  const { values } = parseCommandArgs(
    argv,
    {
      'tools-module': { type: 'string' },
      'model-script': { type: 'string' },
      'inbox-port': { type: 'string', default: '8788' },
    },
    { positionals: false },
  );
  const inboxPort = portFlag('inbox-port', values['inbox-port']);
  const toolsModule = values['tools-module'];
  const modelScript = values['model-script'];
  for (const file of [toolsModule, modelScript])
    if (file !== undefined && !existsSync(file)) throw new UsageError(`${file} does not exist`);

  const env = readEnv();
  // A restart waits for the worker's in-flight activities; in a dev loop a few seconds is enough.
  const grace = { WORKER_SHUTDOWN_GRACE: process.env.WORKER_SHUTDOWN_GRACE ?? '2s' };
  // Read as the worker will read it, before anything starts: a bad worker setting is one line, not a worker that dies.
  const { shutdownGraceMs } = readWorkerEnv({ ...process.env, ...grace });
  // Listening from the start: a Ctrl-C while the parts start still stops the ones already running.
  const interrupted = untilInterrupted();
  const cleanups: Cleanup[] = [];
  try {
    const server = await connectServer(env, say, cleanups);
    const workerEnv: NodeJS.ProcessEnv = { ...process.env, ...grace, TEMPORAL_ADDRESS: server.address };
    let modelLine: string;
    if (hasModelEndpoint(env)) {
      modelLine = `${env.openaiBaseURL ?? 'OpenAI'} (${env.openaiModel}), from OPENAI_*`;
    } else {
      const script = modelScript ? await loadModelScript(modelScript) : demoResponder;
      const model = await startScriptedModel({ scriptFor: () => script });
      cleanups.push(() => model.close());
      workerEnv.OPENAI_BASE_URL = model.baseURL;
      modelLine =
        `${model.baseURL}, scripted (not an LLM) by ${modelScript ?? 'the demo script'}: ` +
        'set OPENAI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL, for a real one';
    }

    const agents = await AgentClient.connect({ address: server.address });
    cleanups.push(() => agents.close());
    const token = randomBytes(18).toString('base64url');
    const signer = signerFromEnv(env);
    const inbox = await startInbox({
      client: agents.client,
      identities: { tokens: { [token]: { name: cliIdentity(undefined, undefined).identity, roles: env.roles } } },
      port: inboxPort,
      log: say,
      ...(signer ? { signer } : {}),
    });
    cleanups.push(() => inbox.close());

    const worker = new WorkerProcess(toolsModule, workerEnv, say, shutdownGraceMs);
    cleanups.push(() => worker.dispose());
    await worker.start().catch(() => undefined); // it said why; a change to the tools starts it again
    if (toolsModule) {
      let settle: NodeJS.Timeout | undefined;
      // The model script is read once, when `dev` starts: a change to it restarts nothing.
      const script = modelScript ? path.basename(modelScript) : undefined;
      // The folder, not the file: an editor that saves by renaming a new file over the old one leaves a watch on the
      // file's old inode, which never fires again. Not recursive: Node 20 watches each file of a tree, the same way.
      const watcher = watch(path.dirname(path.resolve(toolsModule)), (_event, file) => {
        if (!file || !SOURCE_FILE.test(file) || file === script) return;
        clearTimeout(settle);
        settle = setTimeout(() => void worker.restart(`${file} changed`), SETTLE_MS);
      });
      watcher.on('error', (error) => say(`watching ${toolsModule} stopped: ${errorMessage(error)}`));
      cleanups.push(async () => {
        watcher.close();
        clearTimeout(settle);
      });
    }

    say('');
    say('Dev loop up (Ctrl-C stops it all):');
    say(`  Temporal   ${server.address}${server.uiUrl ? `, UI ${server.uiUrl}` : ''}`);
    say(`  Inbox      ${inbox.url}  (sign in with the token ${token})`);
    say(`  Model      ${modelLine}`);
    say(
      `  Worker     ${worker.running ? '' : 'NOT RUNNING (see above), '}task queue "${env.taskQueue}", built-in tools${toolsModule ? ` and ${toolsModule}'s (restarts when a file beside it changes)` : ''}`,
    );
    say('Start runs on that queue: npm start, or npx durable-react-agent run --no-worker "<question>"');
    await interrupted;
    return 0;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  }
}
