import { describe, expect, it } from 'vitest';
import { chainRunIds } from '../../src/client/run-chain';
import { validateAgentConfig } from '../../src/shared/agent-config';
import { DEFAULT_STALL_THRESHOLD, DEFAULT_THOUGHT_PROMPT } from '../../src/shared/config';
import type { AgentWorkflowInput } from '../../src/shared/types';
import { useHarness } from '../support/harness';

const harness = useHarness();
const thought = 'Each step needs the exact product, so the calculator computes it.';

/** The input a run's history says it was started with (the first event of that run). */
async function startedWith(workflowId: string, runId?: string): Promise<AgentWorkflowInput> {
  const history = await harness.client.workflow.getHandle(workflowId, runId).fetchHistory();
  const payload = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  return JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8')) as AgentWorkflowInput;
}

describe('the resolved config crosses the wire', () => {
  it('a run started with two fields records every default in its history, so a later default change cannot alter it', async () => {
    const run = await harness.start([{ answer: 'done' }], 'q', { limits: { maxIterations: 3 } });
    await run.result();
    const { config } = await startedWith(run.workflowId);
    const resolved = validateAgentConfig({ limits: { maxIterations: 3 }, model: run.modelName });
    expect(resolved.ok && config).toEqual(resolved.ok ? resolved.config : null);
    expect(config).toMatchObject({
      limits: { maxIterations: 3, stallThreshold: DEFAULT_STALL_THRESHOLD },
      thoughts: { prompt: DEFAULT_THOUGHT_PROMPT },
    });
  });

  it('continue-as-new hands the same resolved config to the next run', async () => {
    const calc = (n: number) => ({ thought, toolCalls: [{ name: 'calculator', args: { expression: `${n}*2` } }] });
    const run = await harness.start([calc(1), calc(2), { answer: 'done' }], 'q', { history: { maxStepsPerRun: 2 } });
    await run.result();
    const [first, second] = await chainRunIds(harness.client, run.workflowId);
    expect(second).toBeDefined();
    const before = (await startedWith(run.workflowId, first)).config;
    expect((await startedWith(run.workflowId, second)).config).toEqual(before);
    expect(before).toMatchObject({ history: { maxStepsPerRun: 2 }, limits: { maxIterations: 10 } });
    // What the worker recorded when the chain started (its model's price: none on the harness's worker) is carried
    // beside the config, not in it.
    expect((await startedWith(run.workflowId, second)).carried?.terms.pricing).toEqual({
      model: run.modelName,
      price: null,
    });
  });
});
