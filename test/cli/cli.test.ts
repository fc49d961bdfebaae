import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { ReActResult } from '../../src/shared/types';
import { killWorkerProcesses, startWorkerProcess } from '../support/worker-process';
import { startScriptedModel, type ScriptedModelServer, type ScriptedTurn } from '../../src/testing/scripted-model';
import { isServerAnswering, startDevServer } from '../../src/dev/dev-server';
import { AGENT_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes';

// The CLI is tested as users run it: the built bin in a child process (npm test builds dist/ first).
const CLI = path.resolve(__dirname, '../../dist/cli/main.js');

let model: ScriptedModelServer;
let workdir: string;
beforeAll(async () => {
  model = await startScriptedModel();
  workdir = await mkdtemp(path.join(os.tmpdir(), 'dra-cli-'));
});
afterAll(async () => {
  killWorkerProcesses();
  await model?.close();
});

interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `stopReading`: the reader closes stdout after the first chunk, as `| head -1` does. */
function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
  { stopReading = false }: { stopReading?: boolean } = {},
): Promise<CliOutcome> {
  const base: NodeJS.ProcessEnv = { ...process.env, OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined };
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: workdir,
    env: {
      ...base,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `cli-${randomUUID()}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stopReading) child.stdout.destroy();
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/**
 * Scripts a fresh model name. The turn is chosen by how many tool results the conversation holds, not by how many
 * requests arrived: a model call retried on a loaded machine then gets the same answer again, as from a real model.
 */
function scripted(turns: ScriptedTurn[]): string {
  const name = `cli-${randomUUID()}`;
  model.script(name, (request) => {
    const done = request.messages.filter((message) => message.role === 'tool').length;
    return turns[Math.min(done, turns.length - 1)] ?? { status: 400, errorMessage: 'script exhausted' };
  });
  return name;
}

describe('durable-react-agent run', () => {
  it('prints the live trace on stderr and exactly one ReActResult JSON on stdout with --json', async () => {
    const name = scripted([
      {
        thought: 'The calculator gives the exact product of these numbers.',
        toolCalls: [{ name: 'calculator', args: { expression: '12*12' } }],
      },
      { answer: '144' },
    ]);
    const outcome = await cli(['run', '--json', '--model', name, 'What is 12 squared?'], {
      OPENAI_BASE_URL: model.baseURL,
    });
    expect(outcome.stderr).toContain('[step 1] Thought: The calculator gives the exact product');
    expect(outcome.stderr).toContain('Action: calculator');
    expect(outcome.code, outcome.stderr).toBe(0);
    const result = JSON.parse(outcome.stdout) as ReActResult; // throws unless stdout is exactly one JSON value
    expect(result).toMatchObject({ success: true, finalAnswer: '144', terminationReason: 'success' });
    expect(Object.keys(result).sort()).toEqual(
      ['executionTimeMs', 'finalAnswer', 'success', 'terminationReason', 'tokenUsage', 'trace', 'workflowId'].sort(),
    );
  });

  it('--json output larger than a pipe holds arrives whole; a reader that stops early ends the CLI quietly (T9)', async () => {
    // Over 64 KiB: the CLI used to exit before the pipe drained, leaving a cut, unparseable JSON.
    const answer = 'The long answer. '.repeat(9_000);
    const name = scripted([{ answer }]);
    const outcome = await cli(['run', '--json', '--model', name, 'Write a lot.'], { OPENAI_BASE_URL: model.baseURL });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stdout.length).toBeGreaterThan(150_000);
    const result = JSON.parse(outcome.stdout) as ReActResult;
    expect(result.finalAnswer).toBe(answer.trim());
    // `trace` exits right after writing, with no worker to stop first: the case that lost its tail.
    const trace = await cli(['trace', result.workflowId, '--json']);
    expect(trace.code, trace.stderr).toBe(0);
    expect(trace.stdout.length).toBeGreaterThan(150_000);
    expect(JSON.parse(trace.stdout)).toMatchObject({ finalResult: answer.trim() });
    // A reader that had enough after the first chunk (`trace <id> --json | head -1`): the rest of the output meets a
    // closed pipe. The CLI ends quietly with 0, not with an EPIPE stack trace and 1.
    const cut = await cli(['trace', result.workflowId, '--json'], {}, { stopReading: true });
    expect(cut.stdout.length).toBeLessThan(150_000);
    expect([cut.code, cut.stderr]).toEqual([0, '']);
  });

  it('model and tool text reaches the terminal with its control characters made visible (N21)', async () => {
    const name = scripted([
      {
        thought: 'Clearing your screen now\u001b[2J\u001b]0;OWNED\u0007 and rewriting\rthis line.',
        toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }],
      },
      { answer: 'Done\u001b[31m red' },
    ]);
    const outcome = await cli(['run', '--model', name, 'q'], { OPENAI_BASE_URL: model.baseURL });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).not.toContain('\u001b');
    expect(outcome.stderr).not.toContain('\u0007');
    expect(outcome.stderr).toContain('Clearing your screen now\\x1b[2J\\x1b]0;OWNED\\x07 and rewriting this line.');
  });

  it("its own worker reads the worker command's settings: WORKER_PRICES prices the run", async () => {
    const name = scripted([{ answer: 'Priced.' }]);
    const prices = path.join(workdir, `prices-${randomUUID()}.json`);
    await writeFile(prices, JSON.stringify({ [name]: { input: 1000, output: 1000 } }));
    const outcome = await cli(['run', '--model', name, 'q'], { OPENAI_BASE_URL: model.baseURL, WORKER_PRICES: prices });
    expect(outcome.code, outcome.stderr).toBe(0);
    expect(outcome.stderr).toMatch(/Finished: success .*, \$\d/);
    expect(outcome.stderr).not.toContain('no price');
  });

  it('runs on a task queue of its own unless told to join one, so no other worker picks its run up', async () => {
    const name = scripted([{ answer: 'Mine.' }]);
    const own = await cli(['run', '--model', name, 'q'], {
      OPENAI_BASE_URL: model.baseURL,
      TEMPORAL_TASK_QUEUE: undefined,
    });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toMatch(/started on task queue "run-[0-9a-f-]{36}"/);
    const joined = await cli(
      ['run', '--model', scripted([{ answer: 'Joined.' }]), '--task-queue', `joined-${randomUUID()}`, 'q'],
      {
        OPENAI_BASE_URL: model.baseURL,
        TEMPORAL_TASK_QUEUE: undefined,
      },
    );
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stderr).toMatch(/started on task queue "joined-/);
    expect(joined.stdout).toBe('Joined.\n');
  });

  it('--no-worker needs no model endpoint of its own: the worker that serves the queue makes the calls', async () => {
    const taskQueue = `elsewhere-${randomUUID()}`;
    const worker = await startWorkerProcess(taskQueue, model.baseURL);
    try {
      const name = scripted([{ answer: 'Answered elsewhere.' }]);
      // No OPENAI_* here (cli() clears them), as on a machine that only starts runs.
      const outcome = await cli(['run', '--no-worker', '--task-queue', taskQueue, '--model', name, 'q']);
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(outcome.stdout).toBe('Answered elsewhere.\n');
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });

  it('prints the final answer on stdout and exits 0 for a non-success termination', async () => {
    const name = scripted([
      {
        thought: 'Computing the first part with the calculator tool.',
        toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }],
      },
      { answer: 'Only got as far as 1+1=2.' },
    ]);
    const outcome = await cli(['run', '--max-iterations', '1', '--model', name, 'q'], {
      OPENAI_BASE_URL: model.baseURL,
    });
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('Only got as far as 1+1=2.\n');
    expect(outcome.stderr).toContain('Finished: max_iterations');
  });

  it('exits 2 with one line for invalid input', async () => {
    const badFlag = await cli(['run', '--max-iterations', 'ten', 'q']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toBe('error: --max-iterations expects a whole number, got "ten"\n');

    const configFile = path.join(workdir, 'bad.json');
    await writeFile(configFile, JSON.stringify({ limits: { maxIterations: -1, stalThreshold: 2 } }));
    const badConfig = await cli(['run', '--config', configFile, 'q'], { OPENAI_BASE_URL: model.baseURL });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr.trim().split('\n')).toHaveLength(1);
    expect(badConfig.stderr).toMatch(
      /^error: Invalid agent config: limits\.maxIterations: .*; unknown field in limits: stalThreshold/,
    );

    const unknownTool = await cli(['run', '--tools', 'calculator,teleport', 'q'], { OPENAI_BASE_URL: model.baseURL });
    expect(unknownTool.code).toBe(2);
    expect(unknownTool.stderr.trim().split('\n').at(-1)).toBe('error: Unknown tools in config.tools: teleport');

    const noEndpoint = await cli(['run', 'q']);
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.stderr).toContain('set OPENAI_API_KEY');

    // Refused before anything starts (the PostgreSQL schema keeps service ports in a smallint).
    const badShards = await cli(['cluster', '--shards', '0']);
    expect([badShards.code, badShards.stderr]).toEqual([2, 'error: --shards expects a positive integer, got "0"\n']);
    const badPort = await cli(['cluster', '--port', '40000']);
    expect([badPort.code, badPort.stderr]).toEqual([2, 'error: --port expects a port below 32768, got "40000"\n']);
  });

  it("the report's smaller mismatches: exit codes and options as documented (N30)", async () => {
    // A malformed history is invalid input (2), said at once: before, exit 1 ("behaviour changed") after a server start.
    const history = path.join(workdir, 'odd-history.json');
    await writeFile(history, JSON.stringify({ events: [{ eventId: '1', toString: 'x' }] }));
    const malformed = await cli(['replay-check', history]);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).not.toContain('throwaway');
    // The report's 200,000-deep failure cause: one line and exit 2, not 'Maximum call stack size exceeded'.
    const deep = path.join(workdir, 'deep-history.json');
    const cause = `${'{"cause":'.repeat(200_000)}{}${'}'.repeat(200_000)}`;
    const started = `{"eventId":"1","eventType":"EVENT_TYPE_WORKFLOW_EXECUTION_STARTED","workflowExecutionStartedEventAttributes":{"continuedFailure":${cause}}}`;
    await writeFile(deep, `{"events":[${started}]}`);
    const tooDeep = await cli(['replay-check', deep]);
    expect(tooDeep.code).toBe(2);
    expect(tooDeep.stderr).toMatch(/^error: \S+deep-history\.json cannot be replayed: [^\n]+\n$/);
    // `--by 0x10` is not 16.
    const hex = await cli(['raise', 'some-run', '--by', '0x10']);
    expect([hex.code, hex.stderr]).toEqual([
      2,
      'error: --by expects a number above 0 (USD may have decimals), got "0x10"\n',
    ]);
    // fork and continue take --address like the other commands.
    for (const command of [
      ['fork', 'no-such-run', '--from-step', '1'],
      ['continue', 'no-such-run'],
    ]) {
      const outcome = await cli([...command, '--no-worker', '--address', inject('temporalAddress')], {
        TEMPORAL_ADDRESS: undefined,
        OPENAI_BASE_URL: model.baseURL,
      });
      expect(outcome.stderr).not.toContain('Unknown option');
      expect(outcome.stderr).toContain('no-such-run');
    }
  });

  it('every command answers --help with its own usage, from the grouped help (issue 34)', async () => {
    const commands = [
      'init',
      'dev',
      'run',
      'fork',
      'continue',
      'replay-check',
      'eval',
      'server',
      'cluster',
      'worker',
      'codec-server',
      'pending',
      'approve',
      'reject',
      'edit',
      'respond',
      'answer',
      'raise',
      'stop',
      'trace',
      'result',
      'cancel',
      'send',
      'events',
      'inbox',
      'audit',
    ];
    for (const command of commands) {
      const outcome = await cli([command, '--help']);
      expect([command, outcome.code, outcome.stderr]).toEqual([command, 0, '']);
      expect(outcome.stdout, command).toMatch(new RegExp(`^Usage: durable-react-agent ${command}\\b|\\s${command} <`));
    }
    expect((await cli(['run', '--help'])).stdout).toContain('run options:');
    expect((await cli(['approve', 'wf-1', '-h'])).stdout).toContain('--args-hash HASH');
    const top = await cli(['--help']);
    for (const group of ['Start:', 'Run:', 'Decide:', 'Inspect:', 'Operate:', 'Time travel and evaluation:']) {
      expect(top.stderr).toContain(`\n${group}\n`);
    }
  });

  it('run on the server already answering on localhost:7233 links the UI that serves beside it', async () => {
    // The preferred ports: no other test starts a server without naming free ones. A developer's own dev server
    // there (`durable-react-agent server`) serves the same purpose.
    const server = (await isServerAnswering('localhost:7233'))
      ? undefined
      : await startDevServer({ port: 7233, uiPort: 8233, searchAttributes: [...AGENT_SEARCH_ATTRIBUTES] });
    try {
      const outcome = await cli(['run', '--demo', '--json'], { TEMPORAL_ADDRESS: undefined });
      expect(outcome.code).toBe(0);
      expect(outcome.stderr).toContain(
        'Using the Temporal server already answering on localhost:7233, UI http://127.0.0.1:8233\n',
      );
      expect(outcome.stderr).toMatch(/\n {2}http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\/agent-\S+\n/);
    } finally {
      await server?.stop();
    }
  });

  it('--version prints the installed version on stdout, and exits 0', async () => {
    const { version } = JSON.parse(await readFile(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      expect(await cli([flag])).toMatchObject({ code: 0, stdout: `durable-react-agent ${version}\n`, stderr: '' });
    }
    // No command at all is still the usage, on stderr, with exit 2.
    const bare = await cli([]);
    expect([bare.code, bare.stdout, bare.stderr.split('\n')[0]]).toEqual([
      2,
      '',
      'Usage: durable-react-agent <command> [options]   (durable-react-agent <command> --help: one command)',
    ]);
  });

  it('a tokens variable that is not JSON is refused without quoting the token (N24)', async () => {
    const outcome = await cli(['inbox', '--port', '0'], { INBOX_TOKENS: 'prod-secret-token-XYZ123456789' });
    expect(outcome.code).toBe(2);
    expect(outcome.stderr).toBe('error: INBOX_TOKENS is not valid JSON: expected { "<token>": { "name": … } }\n');
  });

  it('exits 1 with the clear message when the endpoint rejects the key', async () => {
    const name = scripted([{ status: 401, errorMessage: 'invalid key' }]);
    const outcome = await cli(['run', '--model', name, 'q'], {
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-wrong',
    });
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr.trim().split('\n').at(-1)).toBe(
      `error: OPENAI_API_KEY rejected by ${model.baseURL} (HTTP 401): invalid key. Set OPENAI_API_KEY to a key valid for this endpoint.`,
    );
  });
});

describe('files the worker and audit read: one line naming the file, exit 2 (T10)', () => {
  it('a WORKER_REMOTE_TOOLS entry named like a built-in tool', async () => {
    const file = path.join(workdir, `remote-${randomUUID()}.json`);
    const declaration = { description: 'Computes on another worker.', parameters: { type: 'object' } };
    await writeFile(
      file,
      JSON.stringify([{ name: 'calculator', taskQueue: 'math', activityType: 'calc', ...declaration }]),
    );
    const outcome = await cli(['worker'], { OPENAI_BASE_URL: model.baseURL, WORKER_REMOTE_TOOLS: file });
    expect([outcome.code, outcome.stderr]).toEqual([
      2,
      `error: WORKER_REMOTE_TOOLS (${file}): "calculator" is already the name of another tool of this worker (a built-in or one of its own); declare the remote tool under another name\n`,
    ]);
  });

  it("a WORKER_REMOTE_TOOLS entry named like one of the loop's own actions", async () => {
    const file = path.join(workdir, `remote-${randomUUID()}.json`);
    const declaration = { description: 'Hands work on.', parameters: { type: 'object' } };
    await writeFile(file, JSON.stringify([{ name: 'delegate', taskQueue: 'q', activityType: 'd', ...declaration }]));
    const outcome = await cli(['worker'], { OPENAI_BASE_URL: model.baseURL, WORKER_REMOTE_TOOLS: file });
    expect([outcome.code, outcome.stderr]).toEqual([
      2,
      `error: WORKER_REMOTE_TOOLS (${file}): Tool name "delegate" is reserved: the agent's built-in delegate action takes those calls; declare the remote tool under another name\n`,
    ]);
  });

  it('audit --verify --keys whose entry names a PEM file that is not there', async () => {
    const keys = path.join(workdir, `keys-${randomUUID()}.json`);
    await writeFile(
      keys,
      JSON.stringify({ keys: [{ id: 'alice-1', approver: 'alice', publicKeyFile: 'missing.pem' }] }),
    );
    const outcome = await cli(['audit', 'some-run', '--verify', '--keys', keys]);
    expect([outcome.code, outcome.stderr]).toEqual([
      2,
      `error: approval keys file ${keys}: approval keys[0] (alice-1): cannot read publicKeyFile ${path.join(workdir, 'missing.pem')} (no such file)\n`,
    ]);
  });
});
