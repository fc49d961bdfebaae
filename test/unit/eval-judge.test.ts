import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judgeSteps } from '../../src/eval/coherence';
import { labelAgreement, LABELS_FILE } from '../../src/eval/labels';
import { proportion } from '../../src/eval/stats';
import { startScriptedModel, type ScriptedModelServer } from '../../src/testing/scripted-model';
import { createOpenAIClient } from '../../src/worker/openai-client';
import type { ReActStep } from '../../src/shared/types';

let model: ScriptedModelServer;
beforeAll(async () => {
  model = await startScriptedModel();
});
afterAll(async () => {
  await model.close();
});

const step = (iteration: number, thought: string): ReActStep => ({
  iteration,
  thought,
  action: { type: 'tool_call', tool: 'calculator', args: { expression: '1+1' }, callId: `c${iteration}-1` },
  observation: '2',
  timestamp: new Date(0).toISOString(),
  tokenUsage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
});

describe('the coherence judge', () => {
  it("takes the judge model's verdicts, and falls back to the heuristic when its reply cannot be read", async () => {
    const openai = createOpenAIClient({ baseURL: model.baseURL });
    const steps = [step(1, 'I add one and one with the calculator.'), step(2, 'Lunch plans on my mind today.')];
    model.script('judge', [
      {
        content:
          'Verdicts: {"steps":[{"iteration":1,"coherent":false,"reason":"odd"},{"iteration":2,"coherent":true,"reason":"fine"}]}',
      },
    ]);
    const judged = await judgeSteps({ openai, model: 'judge', rubric: 'rubric' }, 'add', steps);
    expect(judged.map((verdict) => [verdict.coherent, verdict.by, verdict.reason])).toEqual([
      [false, 'judge', 'odd'],
      [true, 'judge', 'fine'],
    ]);
    model.script('judge-broken', [{ content: 'I would rather not say.' }]);
    const fallback = await judgeSteps({ openai, model: 'judge-broken', rubric: 'rubric' }, 'add', steps);
    expect(fallback.map((verdict) => [verdict.coherent, verdict.by])).toEqual([
      [true, 'heuristic'],
      [false, 'heuristic'],
    ]);
    expect(fallback[0]?.reason).toMatch(/heuristic used/);
  });

  it('states agreement with the labelled steps: the heuristic misses one, a judge that answers like the labels none', async () => {
    const labels = (JSON.parse(readFileSync(LABELS_FILE, 'utf8')) as { steps: Array<{ coherent: boolean }> }).steps;
    const verdicts = labels.map((label, index) => ({
      iteration: index + 1,
      coherent: label.coherent,
      reason: 'as labelled',
    }));
    model.script('labeller', [{ content: JSON.stringify({ steps: verdicts }) }]);
    const openai = createOpenAIClient({ baseURL: model.baseURL });
    const agreement = await labelAgreement({ openai, model: 'labeller', rubric: 'rubric' });
    expect([agreement.heuristic.successes, agreement.heuristic.total]).toEqual([11, 12]);
    expect(agreement.judge?.successes).toBe(12);
  });

  it('gives Wilson intervals that stay inside [0, 1] and narrow with more runs', () => {
    const small = proportion(9, 10);
    const large = proportion(90, 100);
    expect(small.low!).toBeGreaterThan(0.55);
    expect(small.high!).toBeLessThanOrEqual(1);
    expect(large.high! - large.low!).toBeLessThan(small.high! - small.low!);
    expect(proportion(0, 0).rate).toBeNull();
  });
});
