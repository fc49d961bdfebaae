import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createEvalTools } from '../../src/eval/eval-tools';
import { runScriptedEval, type ScriptedEvalResult } from '../../src/eval/scripted-eval';
import { DEFAULT_SUITE, loadSuite } from '../../src/eval/suite';
import type { ScriptedModelServer } from '../../src/testing/scripted-model';
import { runEvalCli, twoTaskSuite } from '../support/eval-cli';
import { useHarness } from '../support/harness';

const harness = useHarness({
  tools: createEvalTools(),
  toolsRoot: path.resolve(__dirname, '../../examples/code-analysis/sample-codebase'),
});

/** Every criterion was computed over the whole suite: each run scored, each step judged. */
function expectComputed(result: ScriptedEvalResult, runs: number): void {
  const { summary } = result;
  expect(summary.runs).toBe(runs);
  expect(summary.termination.total).toBe(runs);
  expect(summary.completeness.total).toBe(runs);
  expect(summary.termination.rate).not.toBeNull();
  expect(summary.coherence.total).toBe(result.records.reduce((sum, record) => sum + record.verdicts.length, 0));
  expect(result.lost).toBe(result.records.filter((record) => record.error !== undefined).length);
}

describe('the eval on personalities', () => {
  it('plays the good scripted agent as plain and as no-text-calls, and scores each on the five criteria', async () => {
    const { tasks } = loadSuite(DEFAULT_SUITE);
    const options = { agents: harness.agents, model: harness.model, tasks, concurrency: 4 };
    const plain = await runScriptedEval({ ...options, personality: 'plain' });
    expectComputed(plain, 13);
    // Plain is what the reader has always read: every target met, nothing lost or refused.
    expect(plain.summary.meets).toEqual({
      coherence: true,
      termination: true,
      completeness: true,
      recovery: true,
      efficiency: true,
    });
    expect([plain.lost, plain.refused]).toEqual([0, 0]);
    // The other personalities' numbers are what the eval is for: they say how well the reader copes, so only that
    // they are computed is asserted here.
    const noText = await runScriptedEval({ ...options, personality: 'no-text-calls' });
    expectComputed(noText, 13);
  }, 240_000);

  it('runs sloppy-text in text mode: the agent sends a stop sequence and no tools', async () => {
    const { tasks } = loadSuite(DEFAULT_SUITE);
    const scripted: string[] = [];
    const model: ScriptedModelServer = {
      baseURL: harness.model.baseURL,
      script: (name, turns, options) => {
        scripted.push(name);
        harness.model.script(name, turns, options);
      },
      requests: (name) => harness.model.requests(name),
      close: async () => undefined,
    };
    const picked = tasks.filter((task) => task.id === 'arith-product');
    const result = await runScriptedEval({ agents: harness.agents, model, personality: 'sloppy-text', tasks: picked });
    expectComputed(result, 1);
    const first = harness.model.requests(scripted[0]!)[0];
    expect(first?.tools).toBeUndefined();
    expect(first?.stop).toEqual(['\nObservation:']);
  }, 120_000);

  it('`eval --scripted all` needs no endpoint and ends with one table row per personality, with the seed', async () => {
    const { dir, suiteFile } = twoTaskSuite('eval-scripted-');
    const { code, stdout, stderr } = await runEvalCli(
      ['--scripted', 'all', '--seed', '7', '--suite', suiteFile, '--out', dir],
      { TEMPORAL_ADDRESS: inject('temporalAddress'), OPENAI_BASE_URL: undefined, OPENAI_API_KEY: undefined },
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('## plain (seed 007)');
    expect(stdout).toContain('## sloppy-text (seed 007)');
    expect(stdout).toContain('Eval on personalities (seed 007, 2 tasks × 1):');
    const rows = stdout
      .split('\n')
      .filter((line) => /^\| [a-z][a-z-]* \| /.test(line) && !line.startsWith('| personality'));
    expect(rows.map((row) => row.split(' | ')[0])).toEqual([
      '| plain',
      '| no-text-calls',
      '| reasoning-field',
      '| think-tags',
      '| sloppy-text',
      '| mistral',
      '| unparsed-calls',
    ]);
    expect(rows[0]).toContain('| ✓ 100% (2/2) | ✓ 100% (2/2) |');
    expect(rows[0]).toMatch(/\| 0\/2 \| 0 \|$/);
    const report = JSON.parse(readFileSync(path.join(dir, 'think-tags', 'report.json'), 'utf8')) as {
      personality: string;
      seed: number;
      runs: unknown[];
    };
    expect([report.personality, report.seed, report.runs.length]).toEqual(['think-tags', 7, 2]);
  }, 240_000);
});
