import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ReActResult } from '../../src';
import { lastMessageOf, startScriptedModel } from '../../src/testing';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
/** The README's hello world: these files, exactly, are what the scratch project runs. */
const HELLO_WORLD = path.join(root, 'examples', 'hello-world');
const HELLO_WORLD_FILES = ['tools.ts', 'worker.ts', 'start.ts'] as const;
// The tsx this repository uses, so npm finds it in its cache.
const TSX_VERSION = (
  JSON.parse(readFileSync(path.join(root, 'node_modules', 'tsx', 'package.json'), 'utf8')) as { version: string }
).version;

describe('the packed package, installed into a scratch project', () => {
  let scratch = '';
  let tarball: string | undefined;
  beforeAll(async () => {
    scratch = await mkdtemp(path.join(os.tmpdir(), 'dra-scratch-'));
    // npm pack takes dist/ as `npm test` just built it, the way a publish would.
    await run('npm', ['pack', '--silent', '--pack-destination', scratch], { cwd: root });
    tarball = (await readdir(scratch)).find((file) => file.endsWith('.tgz'));
    expect(tarball).toBeDefined();
    await writeFile(
      path.join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true, type: 'module' }),
    );
    // The scratch project's own dependencies are the ones a user adds next to ours; npm's cache already has them.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        `./${tarball!}`,
        '@temporalio/worker@1.24.0',
        '@temporalio/client@1.24.0',
        'zod@4',
        `tsx@${TSX_VERSION}`,
      ],
      { cwd: scratch, maxBuffer: 16 * 1024 * 1024 },
    );
  }, 300_000);
  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('defines a tool, adds the plugin to its own worker, starts a run and approves it using only the exports', async () => {
    await copyFile(path.join(__dirname, 'fixtures', 'scratch-agent.mjs'), path.join(scratch, 'agent.mjs'));
    const taskQueue = `scratch-${Date.now()}`;
    const { stdout } = await run(process.execPath, ['agent.mjs', inject('temporalAddress'), taskQueue], {
      cwd: scratch,
    });
    const report = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
      pending: Array<{ tool: string; args: unknown }>;
      applied: { tool: string; decision: string };
      result: ReActResult;
      sent: Array<{ to: string; body: string }>;
    };
    expect(report.pending).toMatchObject([{ tool: 'send_email', args: { to: 'bob', body: 'the report' } }]);
    expect(report.applied).toMatchObject({ tool: 'send_email', decision: 'approve' });
    expect(report.sent).toMatchObject([{ to: 'bob', body: 'the report' }]);
    expect(report.result).toMatchObject({
      success: true,
      terminationReason: 'success',
      finalAnswer: 'Done: the report went to bob.',
    });
    expect(report.result.trace.steps[0]).toMatchObject({ observation: 'sent to bob', decision: { kind: 'approve' } });
  }, 300_000);

  /** Runs the README's start.ts against a worker started by `worker` in the scratch project; start.ts's two lines. */
  async function helloWorld(worker: string[]): Promise<string[]> {
    for (const file of HELLO_WORLD_FILES) await copyFile(path.join(HELLO_WORLD, file), path.join(scratch, file));
    // The model the worker's OPENAI_* variables point at: the scripted server, answering with what the tool returned.
    const model = await startScriptedModel();
    model.script('hello-model', (request, index) =>
      index === 0
        ? {
            thought: 'I should count the words with the word_count tool rather than by eye.',
            toolCalls: [{ name: 'word_count', args: { text: 'the quick brown fox jumps' } }],
          }
        : { answer: `The text has ${lastMessageOf(request, 'tool')}.` },
    );
    const env = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `hello-world-${Date.now()}`,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'not-needed',
      OPENAI_MODEL: 'hello-model',
    };
    // Its own process group, so stopping npx stops tsx and the worker under it.
    const child = spawn('npx', worker, { cwd: scratch, env, detached: true, stdio: 'ignore' });
    const workerExit = once(child, 'exit');
    try {
      const { stdout } = await run('npx', ['tsx', 'start.ts'], { cwd: scratch, env, timeout: 240_000 });
      expect(model.requests('hello-model')).toHaveLength(2);
      return stdout.trim().split('\n');
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      await workerExit;
      await model.close();
    }
  }

  it("runs the README's hello world (examples/hello-world) as a user would: npx tsx worker.ts, npx tsx start.ts", async () => {
    const [started, answer] = await helloWorld(['tsx', 'worker.ts']);
    expect(started).toMatch(/^started agent-/);
    expect(answer).toBe('The text has 5 words.');
  }, 300_000);

  it("runs keyless on the hello world's model.ts: the worker pointed at the URL it prints, no OpenAI variable set", async () => {
    for (const file of [...HELLO_WORLD_FILES, 'model.ts'])
      await copyFile(path.join(HELLO_WORLD, file), path.join(scratch, file));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `keyless-${Date.now()}`,
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OPENAI_MODEL: undefined,
    };
    const model = spawn('npx', ['tsx', 'model.ts'], {
      cwd: scratch,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const modelExit = once(model, 'exit');
    let worker: ReturnType<typeof spawn> | undefined;
    let workerExit: Promise<unknown> = Promise.resolve();
    try {
      const [printed] = (await once(model.stdout, 'data')) as [Buffer];
      const baseURL = /^OPENAI_BASE_URL=(\S+)$/m.exec(printed.toString())?.[1];
      expect(baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      worker = spawn('npx', ['tsx', 'worker.ts'], {
        cwd: scratch,
        env: { ...env, OPENAI_BASE_URL: baseURL },
        detached: true,
        stdio: 'ignore',
      });
      workerExit = once(worker, 'exit');
      const { stdout } = await run('npx', ['tsx', 'start.ts'], { cwd: scratch, env, timeout: 240_000 });
      expect(stdout.trim().split('\n')[1]).toBe('The text has 5 words.');
    } finally {
      for (const child of [worker, model])
        if (child?.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      await Promise.all([workerExit, modelExit]);
    }
  }, 300_000);

  it("serves the README's tools.ts (TypeScript, its tool exported by name) from the shipped worker command", async () => {
    const [started, answer] = await helloWorld(['durable-react-agent', 'worker', '--tools-module', 'tools.ts']);
    expect(started).toMatch(/^started agent-/);
    expect(answer).toBe('The text has 5 words.');
  }, 300_000);

  /** `npm run dev` in `cwd` until `stop()`; `waitFor` resolves with the first match in what it printed from then on. */
  function devLoop(cwd: string, env: NodeJS.ProcessEnv) {
    const child = spawn('npm', ['run', 'dev', '--', '--inbox-port', '0'], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(child, 'exit');
    let printed = '';
    let from = 0;
    const waiting: Array<() => void> = [];
    for (const stream of [child.stdout, child.stderr])
      stream.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        for (const check of waiting.splice(0)) check();
      });
    const waitFor = (pattern: RegExp, timeoutMs = 120_000) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${pattern} in:\n${printed}`)), timeoutMs);
        const check = () => {
          const match = pattern.exec(printed.slice(from));
          if (!match) return void waiting.push(check);
          from += match.index + match[0].length;
          clearTimeout(timer);
          resolve(match);
        };
        check();
      });
    const stop = async () => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      await exited;
    };
    return { waitFor, stop, printed: () => printed };
  }

  it('scaffolds a project with init that typechecks, runs keyless with npm run dev, and reloads its tools', async () => {
    await run('npx', ['durable-react-agent', 'init', 'app'], { cwd: scratch });
    const app = path.join(scratch, 'app');
    const manifest = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')) as {
      type: string;
      dependencies: Record<string, string>;
    };
    // Exact SDK pins: a `^` range lets npm install a second SDK beside the one the plugin is built with.
    expect(manifest).toMatchObject({
      type: 'module',
      dependencies: { '@temporalio/worker': '1.24.0', '@temporalio/client': '1.24.0' },
    });
    expect(readFileSync(path.join(app, '.gitignore'), 'utf8')).toContain('.data/');
    // Never over someone's files: a second init into the same folder refuses, with exit 2 and one line.
    const again = await run('npx', ['durable-react-agent', 'init', 'app'], { cwd: scratch }).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(again?.code).toBe(2);
    expect(again?.stderr).toMatch(/^error: \S+app is not empty \(.*\): init writes into an empty folder only\n$/);
    // The scaffold's own dependencies, with this tarball standing in for the registry's release.
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', `../${tarball!}`], {
      cwd: app,
      maxBuffer: 16 * 1024 * 1024,
    });
    await run('npm', ['run', 'typecheck'], { cwd: app });

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `scaffold-${Date.now()}`,
      OPENAI_API_KEY: undefined,
      OPENAI_BASE_URL: undefined,
      OPENAI_MODEL: undefined,
    };
    const dev = devLoop(app, env);
    try {
      await dev.waitFor(/Start runs on that queue/);
      const inboxUrl = /Inbox +(http:\S+)/.exec(dev.printed())?.[1];
      expect(dev.printed()).toMatch(/Model +http:\/\/127\.0\.0\.1:\d+\/v1, scripted \(not an LLM\) by model\.ts/);
      expect((await fetch(`${inboxUrl!}/login`)).status).toBe(200);
      const first = await run('npm', ['start'], { cwd: app, env, timeout: 120_000 });
      expect(first.stdout.trim().split('\n').pop()).toBe('The text has 5 words.');

      // A change to the tools restarts the worker, and the next run uses the new handler.
      const tools = path.join(app, 'tools.ts');
      await writeFile(tools, readFileSync(tools, 'utf8').replace('} words`', '} words, counted again`'));
      await dev.waitFor(/tools\.ts changed: restarting the worker[\s\S]*worker restarted/);
      const second = await run('npm', ['start'], { cwd: app, env, timeout: 120_000 });
      expect(second.stdout.trim().split('\n').pop()).toBe('The text has 5 words, counted again.');
    } finally {
      await dev.stop();
    }

    // With an endpoint set, the dev loop's worker asks it, and no scripted model starts.
    const model = await startScriptedModel();
    model.script('hello-model', (request, index) =>
      index === 0
        ? { toolCalls: [{ name: 'word_count', args: { text: 'one two three' } }] }
        : { answer: `The endpoint's model saw ${lastMessageOf(request, 'tool')}.` },
    );
    const withEndpoint = devLoop(app, {
      ...env,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'not-needed',
      OPENAI_MODEL: 'hello-model',
    });
    try {
      await withEndpoint.waitFor(/Start runs on that queue/);
      expect(withEndpoint.printed()).toContain(`Model      ${model.baseURL} (hello-model), from OPENAI_*`);
      const { stdout } = await run('npm', ['start'], { cwd: app, env, timeout: 120_000 });
      expect(stdout.trim().split('\n').pop()).toBe("The endpoint's model saw 3 words, counted again.");
      expect(model.requests('hello-model')).toHaveLength(2);
    } finally {
      await withEndpoint.stop();
      await model.close();
    }
  }, 600_000);
});
