import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import { checkRecordings, loadSources, type CheckReport } from '../../src/replay/replay-check';
import type { ReplayEnvironment } from '../../src/replay/replay-run';
import type { RecordedRequest, ScriptedTurn } from '../../src/testing/scripted-model';
import { createOpenAIClient } from '../../src/worker';
import { createBuiltinTools } from '../../src/worker/tools/builtin';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { HISTORIES_DIR, historyToText } from '../support/histories';
import { useHarness } from '../support/harness';
import { createTestTools } from '../support/test-tools';

const harness = useHarness();
const CLI = path.resolve(__dirname, '../../dist/cli/main.js');
/**
 * Where the corpus's accepted behaviours live: a recording by older code whose behaviour a change was meant to alter
 * keeps its file, and the new behaviour goes here (none today: the corpus was recorded by the current code).
 */
const CORPUS_BASELINES = path.resolve(__dirname, '../histories-behaviour');
let connection: NativeConnection;
let env: ReplayEnvironment;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  env = {
    client: harness.client,
    connection,
    registry: new ToolRegistry([...createBuiltinTools({ root: process.cwd() }), ...createTestTools()]),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  };
});
afterAll(async () => {
  await connection?.close();
});

const CAREFUL = 'You are careful: prefer the calculator for any arithmetic.';
const QUICK = 'You are quick: answer simple arithmetic from memory.';

/** A model that takes one branch or the other by what its system prompt says. */
function branching(request: RecordedRequest): ScriptedTurn {
  const messages = request.messages as Array<{ role: string; content: string | null }>;
  const careful = String(messages[0]?.content ?? '').includes('prefer the calculator');
  if (careful && !messages.some((message) => message.role === 'tool'))
    return {
      thought: 'The instructions want the calculator for arithmetic, so I use it.',
      toolCalls: [{ name: 'calculator', args: { expression: '2+2' } }],
    };
  return { answer: careful ? 'The calculator says 4.' : 'It is 4, from memory.' };
}

/** Runs the branching agent under `systemPrompt` and saves its history as a file; returns the file. */
async function record(systemPrompt: string): Promise<string> {
  const run = await harness.start(branching, 'What is 2+2?', { systemPrompt });
  await run.result();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'replay-check-'));
  const [runId] = await chainRunIds(harness.client, run.workflowId);
  const history = await harness.client.workflow.getHandle(run.workflowId, runId).fetchHistory();
  const file = path.join(dir, 'careful.json');
  writeFileSync(file, historyToText(run.workflowId, history));
  return file;
}

const check = async (file: string, extra: Partial<ReplayEnvironment> = {}, accept = false): Promise<CheckReport> => {
  const [report] = await checkRecordings(await loadSources([file], {}), { ...env, ...extra }, { accept });
  return report!;
};

describe('replay-check', () => {
  it('passes every committed recording on the current code', async () => {
    const files = readdirSync(HISTORIES_DIR)
      .filter((file) => file.endsWith('.json'))
      .map((file) => path.join(HISTORIES_DIR, file));
    const reports = await checkRecordings(await loadSources(files, { baselineDir: CORPUS_BASELINES }), env);
    const summary = reports.map((report) => [report.name, report.status, ...report.changes.map((c) => c.detail)]);
    expect(summary.filter(([, status]) => status === 'changed')).toEqual([]);
    // Only what replay-check says it cannot do yet is skipped: a run that delegates to a subagent.
    expect(reports.filter((report) => report.status === 'skipped').map((report) => report.name)).toEqual(['subagent']);
    expect(reports.filter((report) => report.status === 'unchanged').length).toBeGreaterThanOrEqual(15);
  }, 600_000);

  it('flags a changed prompt that makes the model take another branch, and accepts it on request', async () => {
    const file = await record(CAREFUL);
    expect((await check(file)).status).toBe('unchanged');

    // The model behind the fallback is the same branching one: with the new prompt it answers from memory.
    const fallbackModel = `branching-${randomUUID()}`;
    harness.model.script(fallbackModel, branching);
    const fallback = { openai: createOpenAIClient({ baseURL: harness.model.baseURL }), model: fallbackModel };
    const changed = await check(file, { config: { systemPrompt: QUICK }, fallback });
    expect(changed.status).toBe('changed');
    expect(Object.fromEntries(changed.changes.map((change) => [change.kind, change.detail]))).toEqual({
      prompt: 'model call 1 was sent another prompt than recorded',
      tool_calls: 'call 1: recorded step 1: calculator({"expression":"2+2"}), now none',
      final_answer: 'recorded "The calculator says 4.", now "It is 4, from memory."',
    });

    // Not only prompts: a run the current settings stop earlier ends for another reason, with the answers unchanged.
    const capped = await check(file, { config: { limits: { maxIterations: 1 } } });
    expect(capped.changes.find((change) => change.kind === 'termination')?.detail).toBe(
      'recorded success, now max_iterations',
    );

    // Without a model to ask, the recorded answers are served and only the prompt is reported.
    const promptOnly = await check(file, { config: { systemPrompt: QUICK } });
    expect(promptOnly.changes.map((change) => change.kind)).toEqual(['prompt']);

    expect((await check(file, { config: { systemPrompt: QUICK }, fallback }, true)).status).toBe('accepted');
    expect(existsSync(file.replace(/\.json$/, '.expected.json'))).toBe(true);
    expect((await check(file, { config: { systemPrompt: QUICK }, fallback })).status).toBe('unchanged');
  }, 120_000);

  it('reads a run by workflow ID from the server, its whole continue-as-new chain, and finds it unchanged', async () => {
    const sum = (expression: string): ScriptedTurn => ({
      thought: 'Each sum needs the calculator, so I call it once more.',
      toolCalls: [{ name: 'calculator', args: { expression } }],
    });
    const run = await harness.start([sum('1+1'), sum('2+2'), sum('3+3'), { answer: 'Done adding.' }], 'add', {
      history: { maxStepsPerRun: 2 },
    });
    expect((await run.result()).trace.run).toBe(2);
    const sources = await loadSources([run.workflowId], { client: harness.client, baselineDir: os.tmpdir() });
    expect(sources[0]?.histories).toHaveLength(2);
    const [report] = await checkRecordings(sources, env);
    expect([report?.status, report?.changes]).toEqual(['unchanged', []]);
    // The calculator is read-only, so its calls ran ahead inside the model calls: their results come from the
    // recorded replies, and the replay (where nothing runs ahead) finds every one of them.
    expect(report?.notes.filter((note) => note.startsWith('no recorded result'))).toEqual([]);
  }, 120_000);

  it('the CLI exits 0 on unchanged behaviour and 1 on a change, naming it', async () => {
    const file = await record(CAREFUL);
    const config = path.join(path.dirname(file), 'quick.json');
    writeFileSync(config, JSON.stringify({ systemPrompt: QUICK }));
    const cli = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'replay-check', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const same = await cli([file]);
    expect(same.code).toBe(0);
    expect(same.stderr).toContain('ok       careful');
    const changed = await cli([file, '--config', config]);
    expect(changed.code).toBe(1);
    expect(changed.stderr).toContain('CHANGED  careful');
    expect(changed.stderr).toContain('prompt: model call 1 was sent another prompt than recorded');
  }, 120_000);
});
