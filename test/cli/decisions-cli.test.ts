import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { AGENT_WORKFLOW_TYPE } from '../../src/shared/messages';

const CLI = path.resolve(__dirname, '../../dist/cli/main.js');
let model: ScriptedModelServer;
const taskQueue = `cli-decisions-${randomUUID()}`;

beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  await model?.close();
});

/** Runs the CLI; a child still running after `killAfterMs` is killed (its exit code is then null). */
function start(args: string[], killAfterMs?: number, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: taskQueue,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: undefined,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill(), killAfterMs);
  const done = new Promise<number | null>((resolve) => child.on('close', resolve)).finally(() => clearTimeout(timer));
  return { output, done, kill: () => child.kill() };
}

async function cli(args: string[], killAfterMs?: number, env?: NodeJS.ProcessEnv) {
  const { output, done } = start(args, killAfterMs, env);
  return { code: await done, ...output };
}

/** Runs a CLI command that follows something live, and stops it once its stdout has a line containing `text`. */
async function cliUntil(args: string[], text: string, limitMs = 30_000) {
  const { output, done, kill } = start(args, limitMs);
  for (let waited = 0; waited < limitMs && !output.stdout.includes(text); waited += 100)
    await new Promise((resolve) => setTimeout(resolve, 100));
  // The rest of the line may still be on its way.
  for (let waited = 0; waited < 2000 && !output.stdout.endsWith('\n'); waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  kill();
  await done;
  return { ...output, stdout: output.stdout.slice(0, output.stdout.lastIndexOf('\n') + 1) };
}

describe('deciding from the CLI while `run` waits', () => {
  it('run --no-interactive, pending, approve, result, trace', async () => {
    // Keyed on the conversation (tool results so far), so a retried model call gets the same answer again.
    model.script('cli-approval', (request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { answer: 'It is 42.' }
        : {
            thought: 'An exact product needs the calculator; the user wants it confirmed first.',
            toolCalls: [{ name: 'calculator', args: { expression: '21*2' } }],
          },
    );
    const run = start([
      'run',
      '--no-interactive',
      '--confirm',
      'calculator',
      '--model',
      'cli-approval',
      'What is 21 times 2?',
    ]);
    // The notice arrives in chunks: wait for its last command, not its first line.
    for (let attempt = 0; attempt < 200 && !run.output.stderr.includes('respond ... --observation'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const workflowId = /Run (agent-[0-9a-f-]+) started/.exec(run.output.stderr)?.[1] ?? '';
    expect(run.output.stderr).toContain(`Waiting for a decision on c1-1: calculator({"expression":"21*2"})`);
    // The suite's server is not on the default port, so the printed commands name it.
    const address = inject('temporalAddress');
    expect(run.output.stderr).toContain(
      `durable-react-agent approve --address ${address} ${workflowId} c1-1 [--always]`,
    );

    // `events` follows the run live: while it waits for a person, the stream has reached the approval request. It is
    // stopped once that line is out (a fixed wait was too short for a CLI starting on a loaded machine).
    const events = await cliUntil(['events', workflowId, '--json'], '"approval_pending"');
    const streamed = events.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; type: string });
    expect(streamed.map((event) => [event.seq, event.type])).toEqual([
      [1, 'run_started'],
      [2, 'thought'],
      [3, 'tool_call_requested'],
      [4, 'approval_pending'],
    ]);
    const resumed = await cliUntil(['events', workflowId, '--after', '3'], 'Waiting for a decision');
    expect(resumed.stdout).toBe('#4 Waiting for a decision on c1-1 (calculator)\n');

    let pending = await cli(['pending']);
    for (let attempt = 0; attempt < 50 && !pending.stdout.includes(workflowId); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200)); // visibility is eventually consistent
      pending = await cli(['pending']);
    }
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(
      new RegExp(`^${workflowId}  c1-1  calculator\\(\\{"expression":"21\\*2"\\}\\)  \\(argsHash [0-9a-f]{16}\\)`, 'm'),
    );

    const refused = await cli(['approve', workflowId, 'c9-9']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('error: No pending call c9-9 (pending: c1-1)\n');
    const noReason = await cli(['reject', workflowId]);
    expect(noReason.code).toBe(2);
    const stale = await cli(['approve', workflowId, 'c1-1', '--args-hash', '0000000000000000']);
    expect(stale.code).toBe(2);
    expect(stale.stderr).toMatch(/^error: argsHash 0000000000000000 does not match call c1-1 \([0-9a-f]{16}\)/);

    // The printed command works as printed, from a terminal without TEMPORAL_ADDRESS.
    const approved = await cli(['approve', '--address', address, '--as', 'carol', workflowId], undefined, {
      TEMPORAL_ADDRESS: undefined,
    });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe('approved c1-1 (calculator)\n');

    expect(await run.done).toBe(0);
    expect(run.output.stdout).toBe('It is 42.\n');
    // The live trace comes from the event stream, which also reports the decision.
    expect(run.output.stderr).toContain('Decision on c1-1: approve by carol via cli');
    expect(run.output.stderr).toContain('[step 2] Final answer: It is 42.');
    const result = await cli(['result', workflowId]);
    expect(result.stdout).toBe('It is 42.\n');
    // Deciding on the finished run: refused in one line, exit 2, as any refused decision.
    const late = await cli(['approve', workflowId]);
    expect(late).toMatchObject({
      code: 2,
      stderr: `error: Run ${workflowId} is completed: nothing waits for a decision\n`,
    });
    const trace = await cli(['trace', workflowId]);
    expect(trace.stdout).toContain('Action: calculator {"expression":"21*2"}');
    expect(trace.stdout).toContain('success: 2 iterations');
    // The history says who approved, from where, and what ran.
    const audit = await cli(['audit', workflowId]);
    // What the sender claimed, and the Temporal client that sent it, as the server recorded it (N18).
    expect(audit.stdout).toMatch(
      /^\S+Z {2}carol via cli \(sent by \d+@[^)]+\) {2}approve c1-1 calculator\(\{"expression":"21\*2"\}\)\n$/,
    );
  });

  it('interrupted while its run waits on a queue of its own, run says how to serve that queue again', async () => {
    model.script('cli-interrupted', () => ({
      thought: 'An exact product needs the calculator; the user wants it confirmed first.',
      toolCalls: [{ name: 'calculator', args: { expression: '6*7' } }],
    }));
    const run = start(
      ['run', '--no-interactive', '--confirm', 'calculator', '--model', 'cli-interrupted', 'q'],
      60_000,
      { TEMPORAL_TASK_QUEUE: undefined },
    );
    for (let attempt = 0; attempt < 200 && !run.output.stderr.includes('respond ... --observation'); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const queue = /started on task queue "(run-[0-9a-f-]+)"/.exec(run.output.stderr)?.[1];
    const workflowId = /Run (agent-[0-9a-f-]+) started/.exec(run.output.stderr)?.[1];
    expect([queue, workflowId]).toEqual([expect.any(String), expect.any(String)]);
    run.kill();
    expect(await run.done).toBe(130);
    expect(run.output.stderr).toContain(
      `No worker serves ${workflowId} now: its task queue "${queue}" was this process's own. ` +
        `To go on with it: TEMPORAL_TASK_QUEUE=${queue} npx durable-react-agent worker`,
    );
    const client = new Client({ connection: await Connection.connect({ address: inject('temporalAddress') }) });
    await client.workflow.getHandle(workflowId!).terminate('test over');
    await client.connection.close();
  });

  it('result and trace of a finished continue-as-new chain need no worker', async () => {
    const thought = 'Each sum needs the calculator, so I call it once more.';
    const calc = (expression: string) => ({ thought, toolCalls: [{ name: 'calculator', args: { expression } }] });
    model.script('cli-chain', [calc('1+1'), calc('2+2'), calc('3+3'), calc('4+4'), { answer: 'Done adding.' }]);
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-cli-')), 'config.json');
    writeFileSync(config, JSON.stringify({ history: { maxStepsPerRun: 2 } }));
    const run = await cli(['run', '--json', '--config', config, '--model', 'cli-chain', 'Add four times']);
    expect(run.code).toBe(0);
    const { workflowId, trace: live } = JSON.parse(run.stdout) as { workflowId: string; trace: { run: number } };
    expect(live.run).toBe(3);

    // The run's in-process worker has exited: nothing polls this task queue any more.
    const trace = await cli(['trace', workflowId], 20_000);
    expect(trace.code).toBe(0);
    for (const expression of ['1+1', '2+2', '3+3', '4+4'])
      expect(trace.stdout).toContain(`Action: calculator {"expression":"${expression}"}`);
    expect(trace.stdout).toContain('success: 5 iterations');
    const result = await cli(['result', workflowId, '--json'], 20_000);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { trace: { steps: unknown[] } }).trace.steps).toHaveLength(5);
  });

  it("run shows the calls a subagent waits for, and the printed command decides them in the subagent's run", async () => {
    model.script('cli-parent', (request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { answer: 'The researcher says 42.' }
        : {
            thought: 'The researcher can work this out on its own, so I hand the task over.',
            toolCalls: [{ name: 'delegate', args: { agent: 'researcher', task: 'What is 21 times 2?' } }],
          },
    );
    model.script('cli-child', (request) =>
      request.messages.some((message) => message.role === 'tool')
        ? { answer: '42' }
        : {
            thought: 'An exact product needs the calculator; it needs a person to confirm it here.',
            toolCalls: [{ name: 'calculator', args: { expression: '21*2' } }],
          },
    );
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-cli-')), 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        approvals: { require: ['calculator'] },
        subagents: { researcher: { description: 'Works out sums', model: 'cli-child' } },
      }),
    );
    const run = start([
      'run',
      '--no-interactive',
      '--config',
      config,
      '--model',
      'cli-parent',
      'Ask the researcher for 21 times 2',
    ]);
    const printed = /durable-react-agent approve --address (\S+) (\S+) (c\d+-\d+) \[--always\]/;
    for (let attempt = 0; attempt < 200 && !printed.test(run.output.stderr); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [, address = '', childId = '', callId = ''] = printed.exec(run.output.stderr) ?? [];
    const parentId = /Run (agent-[0-9a-f-]+) started/.exec(run.output.stderr)?.[1] ?? '';
    expect(run.output.stderr).toContain(
      `Waiting for a decision on c1-1 in subagent run ${parentId}/c1-1-researcher: calculator({"expression":"21*2"})`,
    );
    expect(childId).toBe(`${parentId}/c1-1-researcher`);

    const approved = await cli(['approve', '--address', address, childId, callId]);
    expect(approved.stdout).toBe('approved c1-1 (calculator)\n');
    expect(await run.done).toBe(0);
    expect(run.output.stdout).toBe('The researcher says 42.\n');
  });

  it('a budget request: run prints how to raise it, `raise --by` does, and the audit names who', async () => {
    const thought = 'Each sum needs the calculator, so I call it once more.';
    const calc = (expression: string) => ({ thought, toolCalls: [{ name: 'calculator', args: { expression } }] });
    model.script('cli-budget', [calc('1+1'), calc('2+2'), { answer: 'Four.' }]);
    const config = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-cli-')), 'config.json');
    writeFileSync(config, JSON.stringify({ limits: { maxIterations: 1, onReached: 'ask' } }));
    const run = start(['run', '--no-interactive', '--config', config, '--model', 'cli-budget', 'Add twice']);
    const printed = /durable-react-agent raise --address (\S+) (\S+) \[--by N\]/;
    for (let attempt = 0; attempt < 200 && !printed.test(run.output.stderr); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [, address = '', workflowId = ''] = printed.exec(run.output.stderr) ?? [];
    expect(run.output.stderr).toContain('asks (b1): Raise the iteration limit from 1 to 2 iterations?');
    const pending = await cli(['pending', '--address', address]);
    expect(pending.stdout).toContain(`${workflowId}  b1  budget: Raise the iteration limit from 1 to 2 iterations?`);
    const bad = await cli(['raise', '--address', address, workflowId, '--by', 'lots']);
    expect(bad.code).toBe(2);
    const raised = await cli(['raise', '--address', address, '--as', 'erin', workflowId, '--by', '2']);
    expect(raised.stdout).toBe(`raised the max_iterations limit of ${workflowId} by 2 to 3\n`);
    expect(await run.done).toBe(0);
    expect(run.output.stdout).toBe('Four.\n');
    const audit = await cli(['audit', '--address', address, workflowId]);
    expect(audit.stdout).toMatch(/^\S+Z {2}erin via cli \(sent by \d+@[^)]+\) {2}raise b1 by 2\n$/);
  });
});

describe('fork and continue from the CLI', () => {
  it('continue raises the limit of a run that hit it; fork edits an observation; trace shows the lineage', async () => {
    const step = (label: string) => ({
      thought: `The ${label} sum needs the calculator before I can answer.`,
      toolCalls: [{ name: 'calculator', args: { expression: label } }],
    });
    model.script('cli-parent', [step('1+1'), step('2+2'), { answer: 'I had to stop after two sums.' }]);
    const parent = await cli(['run', '--json', '--max-iterations', '2', '--model', 'cli-parent', 'Add three times']);
    expect(parent.code).toBe(0);
    const { workflowId, terminationReason } = JSON.parse(parent.stdout) as ReActResultLike;
    expect(terminationReason).toBe('max_iterations');

    const refused = await cli(['continue', workflowId, '--model', 'cli-continue']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--max-iterations must be more than that');

    model.script('cli-continue', [step('3+3'), { answer: 'All three sums are done.' }]);
    const continued = await cli(['continue', workflowId, '--max-iterations', '5', '--model', 'cli-continue', '--json']);
    expect(continued.code).toBe(0);
    const result = JSON.parse(continued.stdout) as ReActResultLike;
    expect([result.terminationReason, result.finalAnswer, result.trace.totalIterations]).toEqual([
      'success',
      'All three sums are done.',
      4,
    ]);
    expect(continued.stderr).toContain(`continues ${workflowId}`);

    model.script('cli-fork', (request) =>
      request.messages.some((message) => message.role === 'tool' && message.content === 'forty-two')
        ? { answer: 'The edited sum says forty-two.' }
        : { answer: 'The sum was as the tool said.' },
    );
    const fork = await cli([
      'fork',
      workflowId,
      '--from-step',
      '1',
      '--observation',
      'forty-two',
      '--model',
      'cli-fork',
    ]);
    expect(fork.code).toBe(0);
    expect(fork.stdout.trim()).toBe('The edited sum says forty-two.');
    const forkId = /Run (\S+) started: forked from/.exec(fork.stderr)?.[1] ?? '';
    const trace = await cli(['trace', forkId], 20_000);
    expect(trace.stdout).toContain(`Forked from ${workflowId}`);
    expect(trace.stdout).toContain('[step 1] (from parent)');
    expect(trace.stdout).toContain('Observation (edited): forty-two');

    expect((await cli(['fork', workflowId])).stderr).toContain('fork needs --from-step N');
    expect((await cli(['fork', workflowId, '--from-step', '0'])).code).toBe(2);
  });

  it('--cost caps a run, and continue --cost raises the cap of a run that stopped at it (issue 50, F3)', async () => {
    const prices = path.join(mkdtempSync(path.join(os.tmpdir(), 'cli-prices-')), 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'cli-cost': { input: 2, output: 8 } }));
    const env = { WORKER_PRICES: prices };
    // Each reply reports 10,000 prompt and 1,000 completion tokens: $0.028.
    const usage = { promptTokens: 10_000, completionTokens: 1000 };
    model.script('cli-cost', (request) => {
      const sums = request.messages.filter((message) => message.role === 'tool').length;
      if (request.tools === undefined) return { answer: `Stopped after ${sums} sums.`, usage: { promptTokens: 10 } };
      return sums < 2
        ? {
            thought: 'Each sum needs the calculator before I can answer.',
            toolCalls: [{ name: 'calculator', args: { expression: `${sums}+1` } }],
            usage,
          }
        : { answer: 'Both sums are done.', usage };
    });
    const parent = await cli(['run', '--json', '--cost', '0.03', '--model', 'cli-cost', 'Add twice'], undefined, env);
    expect(parent.code).toBe(0);
    const { workflowId, terminationReason } = JSON.parse(parent.stdout) as ReActResultLike;
    expect(terminationReason).toBe('cost_budget');

    const refused = await cli(['continue', workflowId, '--cost', '0.03'], undefined, env);
    expect([refused.code, refused.stderr]).toEqual([2, expect.stringContaining('--cost must be more than $0.03')]);
    expect((await cli(['continue', workflowId, '--cost', 'lots'], undefined, env)).stderr).toContain(
      '--cost expects a number, got "lots"',
    );
    const continued = await cli(['continue', workflowId, '--cost', '0.5', '--json'], undefined, env);
    expect(continued.code).toBe(0);
    const result = JSON.parse(continued.stdout) as ReActResultLike;
    expect([result.terminationReason, result.finalAnswer]).toEqual(['success', 'Both sums are done.']);
  });
});

interface ReActResultLike {
  workflowId: string;
  terminationReason: string;
  finalAnswer: string | null;
  trace: { totalIterations: number };
}

describe('events on a run no worker serves (issue 50, F8)', () => {
  it('says so on stderr within seconds, in the words trace uses, and goes on waiting', async () => {
    const nobody = `nobody-polls-${randomUUID()}`;
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    try {
      const client = new Client({ connection, namespace: inject('temporalNamespace') });
      const workflowId = `unserved-${randomUUID()}`;
      await client.workflow.start(AGENT_WORKFLOW_TYPE, {
        taskQueue: nobody,
        workflowId,
        args: [{ query: 'q', config: {} }],
      });
      const started = Date.now();
      const { output, done, kill } = start(['events', workflowId]);
      for (let waited = 0; waited < 20_000 && !output.stderr.includes('\n'); waited += 100)
        await new Promise((resolve) => setTimeout(resolve, 100));
      const saidWithinMs = Date.now() - started;
      kill();
      await done;
      // Before the fix: nothing at all, however long it ran.
      // One line: trace's explanation (which words depend on whether the server has seen a poller), then ours.
      expect(output.stderr.split('\n')).toEqual([expect.any(String), '']);
      expect(output.stderr).toContain(`The getStatus query of ${workflowId} got no answer: no worker `);
      expect(output.stderr).toContain(`task queue "${nobody}"`);
      expect(output.stderr).toContain(
        `the run is running: start a worker on that task queue (TEMPORAL_TASK_QUEUE=${nobody} npx durable-react-agent worker); waiting for its events`,
      );
      expect(output.stdout).toBe('');
      expect(saidWithinMs).toBeLessThan(20_000);
      await client.workflow.getHandle(workflowId).terminate('test over');
    } finally {
      await connection.close();
    }
  });
});
