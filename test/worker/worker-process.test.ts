import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { startDevServer } from '../../src/dev/dev-server';
import { ensureSearchAttributes } from '../../src/dev/search-attributes';
import { startScriptedModel, type ScriptedModelServer, type ScriptedResponder } from '../../src/testing/scripted-model';
import { freePort } from '../../src/testing/free-port';
import { TOOLS_MODULE_LOAD_TIMEOUT_MS } from '../../src/worker/tools/tools-module';
import { CLI, killWorkerProcesses, startWorkerProcess, workerExit } from '../support/worker-process';

let model: ScriptedModelServer;

beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  killWorkerProcesses();
  await model?.close();
});

/** A `durable-react-agent worker` process for this file's scripted model. */
function startWorker(taskQueue: string, extraEnv: Record<string, string> = {}) {
  return startWorkerProcess(taskQueue, model.baseURL, extraEnv);
}

describe('the worker process', () => {
  it(
    "serves health and Prometheus metrics (Temporal's and the agent's), and shuts down cleanly on SIGTERM",
    { timeout: 90_000 },
    async () => {
      const taskQueue = `worker-${randomUUID()}`;
      const worker = await startWorker(taskQueue);
      expect(await fetch(worker.health).then((response) => response.json())).toEqual({
        status: 'ok',
        worker: 'RUNNING',
      });

      model.script('metrics-run', [
        {
          thought: 'Exact arithmetic needs the calculator tool.',
          toolCalls: [{ name: 'calculator', args: { expression: '3*3' } }],
        },
        {
          thought: 'Now a call to a tool that does not exist, by mistake.',
          toolCalls: [{ name: 'teleport', args: {} }],
        },
        { answer: '9' },
      ]);
      const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue });
      expect((await (await agents.start('q', { model: 'metrics-run' })).result()).finalAnswer).toBe('9');
      await agents.close();

      const scrape = await fetch(worker.metrics).then((response) => response.text());
      const value = (pattern: RegExp) =>
        Number(
          scrape
            .split('\n')
            .find((line) => pattern.test(line))
            ?.split(' ')
            .at(-1),
        );
      expect(value(/^agent_iterations\{.*taskQueue="worker-/)).toBe(3);
      expect(value(/^agent_tool_calls\{.*outcome="ok".*tool="calculator"/)).toBe(1);
      // A name the model made up is not a label: the metric's cardinality stays bounded by the catalog.
      expect(value(/^agent_tool_calls\{.*outcome="refused".*tool="unknown"/)).toBe(1);
      expect(scrape).not.toContain('teleport');
      expect(value(/^agent_runs_finished\{.*reason="success"/)).toBe(1);
      expect(value(/^agent_tokens\{kind="prompt"/)).toBeGreaterThan(0);
      expect(value(/^temporal_workflow_completed\{/)).toBe(1);

      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
      expect(
        await fetch(worker.health)
          .then(() => 'answered')
          .catch(() => 'closed'),
      ).toBe('closed');
    },
  );

  it('says at start what it serves, and warns when its model calls cannot work (no key for OpenAI)', async () => {
    const taskQueue = `worker-${randomUUID()}`;
    const worker = await startWorker(taskQueue, {
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
      OPENAI_MODEL: 'gpt-4o-mini',
      WORKER_LOG_LEVEL: 'INFO',
    });
    const said = worker.stderr();
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(said).toMatch(
      new RegExp(
        `\\[INFO\\] durable-react-agent worker on task queue "${taskQueue}": model gpt-4o-mini at ` +
          'https://api.openai.com/v1, \\d+ tools \\(calculator, ',
      ),
    );
    expect(said).toContain(
      '[WARN] no OPENAI_API_KEY: every model call to https://api.openai.com/v1 will be refused. Set OPENAI_API_KEY, ' +
        'or OPENAI_BASE_URL for another OpenAI-compatible endpoint (a local one may need no key).',
    );
    // With an endpoint of its own it names that one, and warns of nothing.
    const local = await startWorker(`worker-${randomUUID()}`, { WORKER_LOG_LEVEL: 'INFO' });
    local.child.kill('SIGTERM');
    await local.exited;
    expect(local.stderr()).toContain(`at ${model.baseURL}`);
    expect(local.stderr()).not.toContain('OPENAI_API_KEY');
  }, 90_000);

  it(
    'runs the tools of a module named by WORKER_TOOLS_MODULE beside the built-in ones (issue 34)',
    { timeout: 90_000 },
    async () => {
      const taskQueue = `worker-tools-${randomUUID()}`;
      const worker = await startWorker(taskQueue, {
        WORKER_TOOLS_MODULE: path.resolve(__dirname, '../fixtures/tools-module/weather.mjs'),
      });
      model.script('weather-run', [
        { thought: 'The forecast needs the weather tool.', toolCalls: [{ name: 'weather', args: { city: 'Lisbon' } }] },
        {
          thought: 'And the arithmetic needs the calculator.',
          toolCalls: [{ name: 'calculator', args: { expression: '24+1' } }],
        },
        { answer: 'Sunny, 24 °C.' },
      ]);
      const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue });
      try {
        const result = await (await agents.start('Weather in Lisbon?', { model: 'weather-run' })).result();
        expect(result.trace.steps.slice(0, 2).map((step) => step.observation)).toEqual([
          'Sunny and 24 °C in Lisbon',
          '{"expression":"24+1","result":25}',
        ]);
      } finally {
        await agents.close();
        worker.child.kill('SIGTERM');
        await worker.exited;
      }
    },
  );

  const MODULE_REFUSED = 'error: Invalid worker environment: WORKER_TOOLS_MODULE test/fixtures/tools-module';
  const NAME_RULE = "use 1-64 letters, digits, '_' or '-', starting with a letter";
  it.each([
    ['exports no tools', 'nothing.mjs', /^\S+ exports no tools: export `tools`/],
    [
      'holds an entry that is no tool (T6)',
      'empty-entry.mjs',
      `tools[0]: Tool name missing (got undefined) is invalid: ${NAME_RULE}`,
    ],
    [
      'has a tool with JSON Schema parameters and no zod schema (T6)',
      'no-schema.mjs',
      'tools[0]: Tool "lookup" needs a zod `schema`: every call\'s arguments are checked with it (`parameters` only shows the model a JSON Schema)',
    ],
    [
      'names a tool like a built-in action (T6)',
      'reserved-name.mjs',
      'tools[1]: Tool name "request_clarification" is reserved: the agent\'s built-in request_clarification action takes those calls',
    ],
    [
      'calls process.exit(0) while loading',
      'exits-while-loading.mjs',
      /^the tools module \S+exits-while-loading\.mjs called process\.exit\(0\) while loading: a tools module only exports what it defines\n$/,
    ],
    [
      'names a tool with control characters, shown escaped (T6)',
      'control-characters.mjs',
      `default[0]: Tool name "bad\\u001b[2Jname" is invalid: ${NAME_RULE}`,
    ],
  ])('refuses a --tools-module that %s, with one line and exit code 2', async (_, file, problem) => {
    const { code, stderr } = await workerExit(['--tools-module', `test/fixtures/tools-module/${file}`]);
    expect(code).toBe(2);
    const prefix = `${MODULE_REFUSED}/${file}: `;
    if (typeof problem === 'string') expect(stderr).toBe(`${prefix}${problem}\n`);
    else expect(stderr.replace(prefix, '')).toMatch(problem);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it(
    'refuses a --tools-module that never finishes loading, after its deadline, with one line and exit code 2 (T7)',
    { timeout: 60_000 },
    async () => {
      const file = 'test/fixtures/tools-module/never-loads.mjs';
      const { code, stderr } = await workerExit(['--tools-module', file]);
      expect({ code, stderr }).toEqual({
        code: 2,
        stderr:
          `${MODULE_REFUSED}/never-loads.mjs: the tools module ${path.resolve(__dirname, '../..', file)} did not ` +
          `finish loading within ${TOOLS_MODULE_LOAD_TIMEOUT_MS / 1000}s (a top-level await that never settles?)\n`,
      });
    },
  );

  it('refuses an invalid environment with one line and exit code 2', async () => {
    const child = spawn(process.execPath, [CLI, 'worker'], {
      env: { ...process.env, WORKER_SHUTDOWN_GRACE: 'soon', WORKER_METRICS_ADDRESS: 'nine-four-six-four' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toBe(
      'error: Invalid worker environment: WORKER_METRICS_ADDRESS: expected host:port, e.g. 0.0.0.0:9464; WORKER_SHUTDOWN_GRACE: expected a duration like 30s or 2m\n',
    );
  });

  it.each([
    ['worker', []],
    ['trace', ['agent-nothing']],
  ])(
    '`%s` against an unreachable Temporal address says so in one line naming it, no transport dump (issue 45)',
    { timeout: 60_000 },
    async (command, args) => {
      // A port nothing listens on: bound, then closed.
      const port = await freePort();
      const child = spawn(process.execPath, [CLI, command, ...args], {
        env: { ...process.env, TEMPORAL_ADDRESS: `127.0.0.1:${port}` },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // 1, not 2: a server that is down may come back, so a supervisor should restart the worker.
      expect(await new Promise((resolve) => child.on('close', resolve))).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`error: cannot reach the Temporal server at 127.0.0.1:${port} (TEMPORAL_ADDRESS): `);
      expect(stderr).not.toMatch(/tonic|ConnectError|Failed to connect/);
    },
  );

  it('refuses an MCP servers file with a bad server, naming it, with exit code 2', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-mcp-env-')), 'servers.json');
    writeFileSync(file, JSON.stringify({ github: { command: 'npx', url: 'http://127.0.0.1:1/mcp' } }));
    const child = spawn(process.execPath, [CLI, 'worker'], {
      env: { ...process.env, WORKER_MCP_SERVERS: file },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toBe(
      `error: Invalid worker environment: WORKER_MCP_SERVERS (${file}): github: give either command (a stdio server) or url (streamable HTTP)\n`,
    );
  });

  it('refuses a remote tools file with a bad declaration, naming it, with exit code 2', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-remote-env-')), 'remote-tools.json');
    const tool = { name: 'reserve_stock', description: 'Reserves stock.', parameters: { type: 'object' } };
    writeFileSync(file, JSON.stringify([{ ...tool, taskQueue: 'inventory', scheduleToStartTimeout: 'soon' }]));
    const child = spawn(process.execPath, [CLI, 'worker'], {
      env: { ...process.env, WORKER_REMOTE_TOOLS: file },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toBe(
      `error: Invalid worker environment: WORKER_REMOTE_TOOLS (${file}): 0.activityType: Invalid input: expected string, received undefined; 0.scheduleToStartTimeout: a duration like "30s", "5m" or "500ms"\n`,
    );
  });

  it('refuses an approval keys file with a bad key, naming it, with exit code 2', async () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-keys-env-')), 'approval-keys.json');
    writeFileSync(file, JSON.stringify({ keys: [{ id: 'alice-1', approver: 'alice', secret: 'c2hvcnQ=' }] }));
    const child = spawn(process.execPath, [CLI, 'worker'], {
      env: { ...process.env, WORKER_APPROVAL_KEYS: file },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(2);
    expect(stderr).toBe(
      `error: Invalid worker environment: WORKER_APPROVAL_KEYS: approval keys file ${file}: key alice-1: an HMAC secret is base64 of at least 32 bytes, got 5\n`,
    );
  });

  it('a busy health port or codec-server port is one line and exit code 2, not a stack trace', async () => {
    const busy = createNetServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    const run = async (args: string[], env: NodeJS.ProcessEnv) => {
      const child = spawn(process.execPath, [CLI, ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      return { code: await new Promise((resolve) => child.on('close', resolve)), stderr };
    };
    try {
      const worker = await run(['worker'], {
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        WORKER_HEALTH_ADDRESS: `127.0.0.1:${port}`,
      });
      expect(worker).toEqual({
        code: 2,
        stderr: `error: Invalid worker environment: WORKER_HEALTH_ADDRESS 127.0.0.1:${port}: the address is in use\n`,
      });
      const keys = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
      const codec = await run(['codec-server', '--port', String(port)], { PAYLOAD_ENCRYPTION_KEYS: keys });
      expect(codec).toEqual({
        code: 2,
        stderr: `error: codec-server cannot listen on 127.0.0.1:${port}: the address is in use\n`,
      });
    } finally {
      busy.close();
    }
  });

  it(
    'two workers on one task queue: SIGKILL one mid-run and the run completes on the other',
    { timeout: 120_000 },
    async () => {
      const taskQueue = `pair-${randomUUID()}`;
      const first = await startWorker(taskQueue);
      const second = await startWorker(taskQueue);
      const calls = { count: 0 };
      // Keyed on the tool results so far, not on the request count: a model call cut off by the kill is retried.
      const responder: ScriptedResponder = (request) => {
        const done = request.messages.filter((message) => message.role === 'tool').length;
        calls.count = Math.max(calls.count, done + 1);
        if (done >= 6) return { answer: 'finished despite the crash' };
        // Slow model calls, so the kill lands while work is in flight.
        return {
          thought: `Step ${done + 1} of the long computation needs the calculator.`,
          toolCalls: [{ name: 'calculator', args: { expression: `${done} * 2` } }],
          delayMs: 400,
        };
      };
      model.script('crash-run', responder);
      const agents = await AgentClient.connect({ address: inject('temporalAddress'), taskQueue });
      const run = await agents.start('long computation', { model: 'crash-run' });
      while (calls.count < 3) await new Promise((resolve) => setTimeout(resolve, 50));
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe(null); // killed by the signal, no clean exit
      const result = await run.result();
      expect(result.finalAnswer).toBe('finished despite the crash');
      expect(result.trace.steps.filter((step) => step.action.type === 'tool_call')).toHaveLength(6);
      await agents.close();
      second.child.kill('SIGTERM');
      await second.exited;
    },
  );

  it(
    'registers the agent search attributes on a server that lacks them, idempotently',
    { timeout: 60_000 },
    async () => {
      const server = await startDevServer({ port: await freePort(), uiPort: await freePort() });
      try {
        await ensureSearchAttributes(server.address, 'default');
        await ensureSearchAttributes(server.address, 'default'); // a second call is a no-op
        const connection = await Connection.connect({ address: server.address });
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
        await connection.close();
        expect(customAttributes?.AgentStatus).toBeDefined();
        expect(customAttributes?.AgentPendingTools).toBeDefined();
      } finally {
        await server.stop();
      }
    },
  );
});
