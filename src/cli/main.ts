#!/usr/bin/env node
// Only what every command needs is imported here: each command's modules load when it runs, so `--help`, `--version`
// and a decision do not load the worker, the dev server and the MCP client first.
import { parseArgs } from 'node:util';
import { unreachableServerMessage } from '../client/errors';
import { LOCAL_TEMPORAL_ADDRESS, readEnv } from '../common/env';
import { packageVersion } from '../common/package-version';
import { ErrorType, errorMessage } from '../shared/errors';
import { DECISION_COMMANDS, DEV_SERVER_DB, parseCommandArgs, UsageError } from './args';

const USAGE = `Usage: durable-react-agent <command> [options]   (durable-react-agent <command> --help: one command)
                                                 (durable-react-agent --version: the installed version)

Start:
  init [DIR]                A new project in DIR from the hello world: tools.ts, worker.ts, start.ts, a scripted
                            model.ts, the SDK pinned, tsconfig, .gitignore; then npm install and npm run dev
  dev [--tools-module FILE] [--model-script FILE] [--inbox-port 8788]
                            The dev loop until Ctrl-C: the dev server (or the one answering), a worker with FILE's
                            tools that restarts when a file beside it changes, the inbox, and with no OPENAI_*
                            endpoint a scripted model (the script FILE exports, else the demo's); prints each address

Run:
  run [options] "<query>"   Run an agent; live trace on stderr, final answer on stdout
  send    <workflowId> "<text>" [--no-wait]
                            A follow-up message to a conversation (conversation.idleTimeout); prints the turn's answer
  worker [--tools-module FILE]
                            Run a worker against TEMPORAL_ADDRESS until Ctrl-C; FILE (or WORKER_TOOLS_MODULE) exports
                            your own tools (\`export const tools = [defineTool(…)]\`), run beside the built-in ones.
                            Reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TASK_QUEUE, OPENAI_BASE_URL,
                            OPENAI_API_KEY, OPENAI_MODEL, PAYLOAD_ENCRYPTION_KEYS and the WORKER_* settings: TOOLS_ROOT,
                            MCP_SERVERS, REMOTE_TOOLS, APPROVAL_KEYS, PRICES, MODEL_CALLS, MODEL_TIMEOUT,
                            MODEL_ATTEMPTS, OPEN_LOCALLY, RUN_AHEAD, MAX_CACHED_WORKFLOWS, HEALTH_ADDRESS,
                            METRICS_ADDRESS, SHUTDOWN_GRACE, LOG_LEVEL; OTEL_EXPORTER_OTLP_ENDPOINT for tracing
                            (each in docs/worker-and-deployment.md)

Decide:
  pending [--json]          Calls and questions waiting for a person, across runs
  approve <workflowId> [callId] [--always]
  reject  <workflowId> [callId] --reason TEXT
  edit    <workflowId> [callId] --args '<json>'
  respond <workflowId> [callId] --observation TEXT
  answer  <workflowId> "<text>" [callId]
  raise   <workflowId> [requestId] [--by N]     stop <workflowId> [requestId]
                            Decide a run's budget request (limits.onReached: 'ask'): raise the limit, or stop there
  inbox [--port 8788] [--host 127.0.0.1] [--tokens FILE] [--trusted-header NAME] [--roles-header NAME] [--public-url URL]
                            The approval inbox (web): everything waiting for a person, run pages with live traces;
                            tokens file: {"<token>": {"name": "alice", "roles": ["finance"]}} (or INBOX_TOKENS_FILE)
  (approve/reject/edit/respond/answer take --as NAME and --roles a,b, else AGENT_IDENTITY/AGENT_ROLES, else the OS
   user: recorded in the run's history as who decided; with AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE set,
   decisions are signed for approvals.requireSigned)
  (callId may be left out when exactly one call is pending; approve/reject/edit/respond take --args-hash HASH, from
   pending, to decide only those exact arguments; these commands take --address host:port, else TEMPORAL_ADDRESS,
   else localhost:7233)

Inspect:
  trace   <workflowId> [--json]     result <workflowId> [--json]     cancel <workflowId>
  cost    <workflowId> [--json]
                            What the run cost: tokens and money per model call (the worker's prices), tool time,
                            Temporal Cloud engine actions, retries and waste; its chain and subagents summed in
  events  <workflowId> [--after SEQ] [--json]
                            Follow a run's events live until it ends (resume after SEQ)
  audit   <workflowId> [--json] [--verify [--keys FILE]]
                            Who decided what, when, on which arguments (read from the run's history); --verify
                            re-checks each decision's signature with the worker's keys (else WORKER_APPROVAL_KEYS)

Operate:
  server                    Start the embedded Temporal dev server (state in ${DEV_SERVER_DB}) until Ctrl-C
  cluster [--shards 4] [--port 7233] [--namespace NAME] [--keep]
                            A throwaway production-shape cluster until Ctrl-C: PostgreSQL, one process per
                            Temporal service (builds the server with Go on first use)
  codec-server [--port 8888] [--origin http://127.0.0.1:8233] [--token T] [--public-url URL]
                            Decode/encode endpoints for the Temporal UI (needs PAYLOAD_ENCRYPTION_KEYS)

Time travel and evaluation:
  fork <workflowId> --from-step K [--observation TEXT] [--model NAME] [--config FILE.json] [run options]
                            A new run from steps 1..K of another, taken as recorded (no model call, no tool run
                            again), step K's observation optionally replaced; then it goes on
  continue <workflowId> [--max-iterations N] [--token-budget N] [--cost USD] [--timeout S] [run options]
                            Go on with a finished run that hit a limit or stalled: every step and total carried
  replay-check <history.json…|workflowId…> [--accept] [--baseline-dir DIR] [--config FILE.json]
               [--tools-module FILE.js] [--model-url URL --model NAME] [--address host:port] [--json]
                            Re-run recorded runs with the current code against their recorded model answers, tool
                            results and decisions; report changed tool calls, arguments, approvals, answers,
                            termination reasons and prompts. Exit 1 on a change; --accept makes it the baseline
  eval [--suite FILE] [--model NAME] [--judge-model NAME] [--concurrency 4] [--repeat 1] [--seed 0] [--out DIR]
       [--tools-module FILE] [--json]
                            Run a task suite (default: evals/suite.json) against OPENAI_BASE_URL and print the five
                            success criteria with 95% intervals; writes report.json and report.svg
  eval --scripted [PERSONALITY|all] [--seed 0] [--repeat 1]
                            No endpoint: the good scripted agent plays the suite while the in-process scripted model
                            replies the way a kind of server does: plain (default), no-text-calls, reasoning-field,
                            think-tags, sloppy-text, mistral or unparsed-calls; all ends with a table of them.
                            --seed labels the runs (repeat k is seed N+k): nothing is random, it only shifts which
                            of sloppy-text's reply forms a task gets first

run options:
  --tools a,b               Tools the agent may use (default: all built-ins)
  --max-iterations N        --stall-threshold N      --timeout SECONDS      --token-budget N
  --cost USD                Cap the run's money (limits.cost; the worker needs a price for its model)
  --model NAME              --tool-calling native|text
  --temperature T           --max-tokens N           (sent with every thinking call)
  --success-phrase TEXT     --failure-phrase TEXT   (repeatable)
  --config FILE.json        Full agent config (flags override it)
  --root DIR                Folder the file and search tools may read (default: current directory)
  --json                    Print exactly one ReActResult JSON object on stdout
  --no-worker               Do not run a worker in this process
  --demo                    Ask the demo question; without a model endpoint, use the scripted demo model
  --confirm TOOL            Require a person to confirm calls of TOOL (repeatable)
  --no-interactive          Never prompt: print the workflow ID and wait for decisions sent from elsewhere
  --task-queue NAME         Join this queue (default: TEMPORAL_TASK_QUEUE if set, else one of this run's own; with
                            --no-worker, the shared default queue a worker elsewhere serves)

Examples:
  durable-react-agent init my-agent && cd my-agent && npm install && npm run dev
  durable-react-agent dev --tools-module tools.ts
  durable-react-agent server
  durable-react-agent run --demo
  durable-react-agent run --tools calculator --confirm calculator "What is 17 * 23?"
  durable-react-agent worker --tools-module tools.ts
  durable-react-agent pending
  durable-react-agent approve agent-1b2c c1-1
  durable-react-agent reject agent-1b2c --reason "use the sandbox account"
  durable-react-agent answer agent-1b2c "the EU region"
  durable-react-agent trace agent-1b2c --json | jq '.steps[-1]'
  durable-react-agent result agent-1b2c
  durable-react-agent cancel agent-1b2c
  durable-react-agent cost agent-1b2c
  durable-react-agent events agent-1b2c --after 12
  durable-react-agent inbox --tokens tokens.json

Exit codes: 0 run finished (any termination reason), 2 invalid input, 1 other errors (replay-check: 1 = behaviour changed).`;

/**
 * One command's part of {@link USAGE}: its entry (a line at two spaces naming it, and the deeper-indented lines
 * after), the run options for the commands that take them, the notes of its group, and its examples. So `run --help` and the
 * others answer instead of "Unknown option", from the one text that lists every command.
 */
export function commandHelp(command: string): string | undefined {
  const lines = USAGE.split('\n');
  const named = new RegExp(`^  ${command}\\b|\\s{2,}${command} <`);
  // A command may have more than one entry (`eval` and `eval --scripted`).
  const entries: string[][] = [];
  lines.forEach((line, start) => {
    if (!/^ {2}[^ (]/.test(line) || !named.test(line)) return;
    let end = start + 1;
    while (end < lines.length && /^ {3,}/.test(lines[end]!)) end++;
    entries.push(lines.slice(start, end));
  });
  if (entries.length === 0) return undefined;
  const section = (title: string) => {
    const from = lines.indexOf(title);
    const to = lines.indexOf('', from);
    return lines.slice(from, to < 0 ? undefined : to);
  };
  const notesFrom = lines.findIndex((line) => line.startsWith('  ('));
  const notes = lines.slice(notesFrom, lines.indexOf('', notesFrom));
  const decides = ['approve', 'reject', 'edit', 'respond', 'answer'].includes(command);
  const examples = section('Examples:').filter((line) =>
    new RegExp(`^ {2}durable-react-agent ${command}( |$)`).test(line),
  );
  return [
    ...entries.flatMap((entry) => [`Usage: durable-react-agent ${entry[0]!.trim()}`, ...entry.slice(1)]),
    ...(['run', 'fork', 'continue'].includes(command) ? ['', ...section('run options:')] : []),
    ...(decides ? ['', ...notes] : []),
    ...(examples.length > 0 ? ['', 'Examples:', ...examples] : []),
  ].join('\n');
}

const say = (line: string): void => void process.stderr.write(`${line}\n`);
const out = (line: string): void => void process.stdout.write(`${line}\n`);
/** Resolves at Ctrl-C (or SIGTERM): the long-running commands stop then. */
const waitForInterrupt = () =>
  new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });

async function codecServerCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '8888' },
      host: { type: 'string', default: '127.0.0.1' },
      // The UI URL the embedded server prints: a CORS origin must match it exactly.
      origin: { type: 'string', default: 'http://127.0.0.1:8233' },
      token: { type: 'string' },
      'public-url': { type: 'string' },
    },
  });
  const env = readEnv();
  const publicUrl = values['public-url'] ?? env.codecServer.publicUrl;
  if (publicUrl !== undefined && !URL.canParse(publicUrl))
    throw new UsageError(
      `--public-url expects the URL the UI calls, like https://codec.example.com, got "${publicUrl}"`,
    );
  if (!env.payloadEncryptionKeys)
    throw new UsageError('codec-server needs PAYLOAD_ENCRYPTION_KEYS (id:base64key,…), the same keys as the workers');
  const port = Number(values.port);
  if (!Number.isInteger(port)) throw new UsageError(`--port expects a number, got "${values.port}"`);
  const token = values.token ?? env.codecServer.token;
  const [{ EncryptionCodec, parseEncryptionKeys }, { startCodecServer }] = await Promise.all([
    import('../common/data-converter.js'),
    import('../worker/codec/codec-server.js'),
  ]);
  const { url } = await startCodecServer({
    codec: new EncryptionCodec(parseEncryptionKeys(env.payloadEncryptionKeys)),
    origin: values.origin,
    token,
    host: values.host,
    port,
    ...(publicUrl ? { publicUrl } : {}),
  });
  say(`Codec server on ${url} for ${values.origin}${token ? ' (bearer token required)' : ''}`);
  if (!token) say('warning: no --token (CODEC_SERVER_TOKEN): any process on this host can have payloads decrypted');
  say(`Start the UI with --ui-codec-endpoint ${url}, or set it in the UI's Data Encoder settings. Ctrl-C stops it.`);
  await waitForInterrupt();
  return 0;
}

async function serverCommand(): Promise<number> {
  const [{ startDevServer }, { ensureSearchAttributes }, { AGENT_SEARCH_ATTRIBUTES }] = await Promise.all([
    import('../dev/dev-server.js'),
    import('../dev/search-attributes.js'),
    import('../shared/search-attributes.js'),
  ]);
  const env = readEnv();
  const server = await startDevServer({
    dbFile: DEV_SERVER_DB,
    namespace: env.temporalNamespace,
    searchAttributes: [...AGENT_SEARCH_ATTRIBUTES],
    log: say,
  });
  await ensureSearchAttributes(server.address, server.namespace);
  say(`Temporal dev server: ${server.address} (namespace ${server.namespace}, state in ${DEV_SERVER_DB})`);
  if (server.uiUrl) say(`Temporal UI: ${server.uiUrl}`);
  say('Press Ctrl-C to stop.');
  // The server process belongs to the SDK's native runtime, which holds no Node handle: without this timer Node would
  // see an empty event loop and exit at once, taking the server with it.
  const keepAlive = setInterval(() => undefined, 60_000);
  await waitForInterrupt();
  clearInterval(keepAlive);
  await server.stop();
  return 0;
}

/**
 * The errors that mean the input must change (exit 2), by name: every error of the family has a stable one, and
 * naming them spares loading each command's modules only to ask `instanceof`.
 */
const INVALID_INPUT: ReadonlySet<string> = new Set([
  'UsageError',
  'DecisionRefusedError',
  'InvalidEnvironmentError',
  'RemoteToolConfigError',
  'PayloadCodecError',
  'SigningKeyError',
  'DevServerBusyError',
  'InvalidConfigError',
  'ForkRefusedError',
]);

/** Runs a command and maps failures to the designed exit codes, each with a one-line message. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `<command> --help` (or -h) anywhere in its arguments: that command's usage, not an "Unknown option" error.
  if (command !== undefined && (rest.includes('--help') || rest.includes('-h'))) {
    const help = commandHelp(command);
    if (help !== undefined) {
      out(help);
      return 0;
    }
  }
  try {
    const decision = DECISION_COMMANDS.find((name) => name === command);
    if (decision) return await (await import('./decision-commands.js')).decisionCommand(decision, rest, out, say);
    switch (command) {
      case 'run':
        return await (await import('./run-command.js')).runCommand(rest, out, say);
      case 'fork':
        return await (await import('./fork-command.js')).forkCommand(rest, out, say);
      case 'continue':
        return await (await import('./fork-command.js')).continueCommand(rest, out, say);
      case 'replay-check':
        return await (await import('./replay-check-command.js')).replayCheckCommand(rest, out, say);
      case 'eval':
        return await (await import('./eval-command.js')).evalCommand(rest, out, say);
      case 'server':
        return await serverCommand();
      case 'cluster':
        return await (await import('./cluster-command.js')).clusterCommand(rest, say, waitForInterrupt);
      case 'worker': {
        // The flag wins over WORKER_TOOLS_MODULE; every other setting is the environment's (a deployment's).
        const { values } = parseCommandArgs(rest, { 'tools-module': { type: 'string' } }, { positionals: false });
        const [{ readWorkerEnv }, { runWorkerProcess }] = await Promise.all([
          import('../worker/env.js'),
          import('../worker/process.js'),
        ]);
        const workerEnv = readWorkerEnv();
        await runWorkerProcess(readEnv(), {
          ...workerEnv,
          toolsModule: values['tools-module'] ?? workerEnv.toolsModule,
        });
        return 0;
      }
      case 'init':
        return await (await import('./init-command.js')).initCommand(rest, say);
      case 'dev':
        return await (await import('./dev-command.js')).devCommand(rest, say, waitForInterrupt);
      case 'codec-server':
        return await codecServerCommand(rest);
      case 'inbox':
        return await (await import('./inbox-command.js')).inboxCommand(rest, say, waitForInterrupt);
      case '--version':
      case '-v':
      case 'version':
        out(`durable-react-agent ${packageVersion()}`);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        say(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"; try --help`);
    }
  } catch (error) {
    const address = readEnv().temporalAddress ?? LOCAL_TEMPORAL_ADDRESS;
    // A server that is down may come back: exit 1, as for any condition that can pass, not 2 (input to fix).
    const unreachable = unreachableServerMessage(error, address);
    const message = unreachable ?? errorMessage(error).split('\n')[0];
    say(`error: ${message}`);
    const name = error instanceof Error ? error.name : '';
    const refusedConfig = name === 'AgentRunError' && (error as { type?: string }).type === ErrorType.InvalidConfig;
    return INVALID_INPUT.has(name) || refusedConfig ? 2 : 1;
  }
}

/**
 * Resolves once everything written to `stream` so far has been handed on: writes to a pipe are asynchronous, and
 * exiting before they drain cut `--json` output at the pipe's 64 KiB.
 */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/**
 * A reader that stops early (`trace <id> | head -1`) closes the pipe, and the next write fails with EPIPE: the reader
 * had what it wanted, so this is no failure of the command. The CLI exits at once and quietly, with 0, as Node CLIs
 * commonly do for a closed pipe: not 141 (a shell's code for a process SIGPIPE killed), which under `set -o pipefail`
 * would fail a script for a `head` that had enough. Any other stdout error is thrown as before.
 */
function exitQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

if (require.main === module) {
  exitQuietlyWhenStdoutCloses();
  void main(process.argv.slice(2)).then(async (code) => {
    await Promise.all([drained(process.stdout), drained(process.stderr)]);
    // Exit explicitly all the same: a connection or timer left open must not keep a finished command alive.
    process.exit(code);
  });
}
