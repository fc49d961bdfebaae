import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { createEvalTools } from '../../src/eval/eval-tools';
import { scoreRun, summarize, type CriteriaSummary } from '../../src/eval/criteria';
import { runSuite } from '../../src/eval/runner';
import { DEFAULT_SUITE, loadSuite } from '../../src/eval/suite';
import type { ScriptedResponder } from '../../src/testing/scripted-model';
import { BAD_AGENT, GOOD_AGENT, GOOD_SQL_AGENT } from '../support/eval-agents';
import { tools as textToSqlTools } from '../../examples/text-to-sql/eval-tools';
import { runEvalCli, twoTaskSuite } from '../support/eval-cli';
import { useHarness } from '../support/harness';

const harness = useHarness({
  tools: [...createEvalTools(), ...textToSqlTools],
  toolsRoot: path.resolve(__dirname, '../../examples/code-analysis/sample-codebase'),
});

/** Runs a shipped suite with one scripted agent and returns the five criteria. */
async function evaluate(agent: Record<string, ScriptedResponder>, file = DEFAULT_SUITE): Promise<CriteriaSummary> {
  const suite = loadSuite(file);
  const models = new Map<string, string>();
  for (const task of suite.tasks) {
    const model = `eval-${task.id}-${randomUUID()}`;
    harness.model.script(model, agent[task.id]!);
    models.set(task.id, model);
  }
  const records = await runSuite({
    agents: harness.agents,
    tasks: suite.tasks,
    modelFor: (task) => models.get(task.id),
    concurrency: 4,
  });
  return summarize(records.map(scoreRun));
}

describe('the eval harness', () => {
  it("separates a good agent from a bad one on the shipped suite's five criteria", async () => {
    const good = await evaluate(GOOD_AGENT);
    const bad = await evaluate(BAD_AGENT);
    const rates = (summary: CriteriaSummary) => ({
      coherence: summary.coherence.rate,
      termination: summary.termination.rate,
      completeness: summary.completeness.rate,
      recovery: summary.recovery.rate,
      efficiency: summary.efficiency.mean,
    });
    // Every target is met by the good agent…
    expect(good.meets, JSON.stringify(rates(good))).toEqual({
      coherence: true,
      termination: true,
      completeness: true,
      recovery: true,
      efficiency: true,
    });
    // …and missed by the bad one on everything its behaviour touches; its traces are as complete (the runtime's job).
    expect(bad.meets, JSON.stringify(rates(bad))).toEqual({
      coherence: false,
      termination: false,
      completeness: true,
      recovery: false,
      efficiency: false,
    });
    expect(good.termination.successes).toBe(13);
    expect(bad.termination.rate!).toBeLessThan(0.7);
    // The intervals say how sure the numbers are: the two agents' termination intervals do not overlap.
    expect(bad.termination.high!).toBeLessThan(good.termination.low!);
  }, 240_000);

  it("scores the text-to-SQL example's suite: runs end on the accepted submission, as expected", async () => {
    const summary = await evaluate(GOOD_SQL_AGENT, path.resolve(__dirname, '../../evals/text-to-sql.json'));
    expect([summary.termination.successes, summary.termination.total]).toEqual([2, 2]);
    expect(summary.meets.coherence).toBe(true);
    expect(summary.meets.completeness).toBe(true);
  }, 120_000);

  it('the eval command runs a suite against an endpoint and prints the criteria, a JSON report and a plot', async () => {
    const { dir, suiteFile, picked } = twoTaskSuite('eval-cli-');
    // One model name for every task, as against a real endpoint: the script is chosen by the task's query.
    const model = `eval-cli-${randomUUID()}`;
    harness.model.script(model, (request, index) => {
      const query = String((request.messages as Array<{ content: string }>)[1]?.content ?? '');
      const task = picked.find((candidate) => query.includes(candidate.query))!;
      return GOOD_AGENT[task.id]!(request, index);
    });
    const { code, stdout, stderr } = await runEvalCli(['--suite', suiteFile, '--model', model, '--out', dir], {
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      OPENAI_BASE_URL: harness.model.baseURL,
      OPENAI_API_KEY: undefined,
    });
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('2/2 runs');
    expect(stdout).toMatch(
      /recover-peru\s+termination 1\/1 \[\d+%–100%\]\s+coherent 3\/3\s+complete 1\/1\s+recovered 1\/1/,
    );
    expect(stdout).toContain('✓ termination accuracy    100%  2/2 runs');
    expect(stdout).toContain('✓ error recovery          100%  1/1 runs with errors');
    expect(stdout).toMatch(/labelled steps: heuristic 11\/12/);
    const report = JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as { runs: unknown[] };
    expect(report.runs).toHaveLength(2);
    expect(readFileSync(path.join(dir, 'report.svg'), 'utf8')).toContain('<svg');
  }, 120_000);
});
