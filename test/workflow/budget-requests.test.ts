import { describe, expect, it } from 'vitest';
import { DecisionRefusedError } from '../../src/client/errors';
import { AgentClient } from '../../src/client/agent-client';
import { decideBudgetSignal } from '../../src/shared/messages';
import type { ScriptedTurn } from '../../src/testing';
import { TEST_REVIEWER, useHarness } from '../support/harness';
import { waitForBudget } from '../support/pending';

const harness = useHarness();
const REVIEWER = { identity: TEST_REVIEWER, channel: 'client' };
const thought = 'Each sum needs the calculator, so I call it once more.';
const calc = (expression: string): ScriptedTurn => ({
  thought,
  toolCalls: [{ name: 'calculator', args: { expression } }],
});

describe("limits.onReached: 'ask' turns a limit into a request a person decides", () => {
  it("approvers['@budget'] decide who may raise: others and anonymous signals are refused, anyone may stop (N13)", async () => {
    const run = await harness.start([calc('1+1'), { answer: 'Two.' }], 'q', {
      limits: { maxIterations: 1, onReached: 'ask' },
      approvals: { approvers: { '@budget': ['role:finance'] } },
    });
    await waitForBudget(harness.agents, run.workflowId);
    const bob = new AgentClient({ client: harness.client, identity: 'bob', channel: 'client' });
    await expect(bob.handle(run.workflowId).raiseBudget(1_000)).rejects.toMatchObject({
      reason: 'not_allowed',
      message: 'bob may not raise the iteration limit; approvers: role:finance',
    });
    // The report's anonymous raise: a raw signal, as from the Temporal UI or CLI.
    await harness.client.workflow
      .getHandle(run.workflowId)
      .signal(decideBudgetSignal, { requestId: 'b1', decision: 'raise', amount: 1_000 });
    expect((await harness.agents.handle(run.workflowId).getPending()).budget).toMatchObject({
      requestId: 'b1',
      current: 1,
    });
    const alice = new AgentClient({ client: harness.client, identity: 'alice', roles: ['finance'], channel: 'client' });
    expect(await alice.handle(run.workflowId).raiseBudget(1)).toMatchObject({ decision: 'raise', newLimit: 2 });
    const result = await run.result();
    expect(result.finalAnswer).toBe('Two.');
    expect(result.trace.budgetRequests).toEqual([
      expect.objectContaining({
        outcome: 'raise',
        amount: 1,
        by: { identity: 'alice', roles: ['finance'], channel: 'client' },
      }),
    ]);
  });

  it('max_iterations: the run waits as a pending request; a raise lets it go on and finish', async () => {
    const run = await harness.start([calc('1+1'), calc('2+2'), calc('3+3'), { answer: 'Six.' }], 'q', {
      limits: { maxIterations: 2, onReached: 'ask' },
    });
    const request = await waitForBudget(harness.agents, run.workflowId);
    expect(request).toMatchObject({
      requestId: 'b1',
      limit: 'max_iterations',
      current: 2,
      suggested: 2,
      unit: 'iterations',
      question: 'Raise the iteration limit from 2 to 4 iterations?',
    });
    // It is in the cross-run lists, and the run says it waits for a person.
    const items = await harness.agents.handle(run.workflowId).listPending();
    expect(items).toEqual([expect.objectContaining({ kind: 'budget', callId: 'b1', workflowId: run.workflowId })]);
    expect((await run.getStatus()).state).toBe('awaiting_approval');
    expect(harness.model.requests(run.modelName)).toHaveLength(2); // nothing more until someone decides

    const applied = await harness.agents.handle(run.workflowId).raiseBudget(2);
    expect(applied).toEqual({
      requestId: 'b1',
      limit: 'max_iterations',
      decision: 'raise',
      amount: 2,
      newLimit: 4,
      by: REVIEWER,
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.finalAnswer).toBe('Six.');
    expect(result.trace.budgetRequests).toEqual([
      expect.objectContaining({
        requestId: 'b1',
        limit: 'max_iterations',
        outcome: 'raise',
        from: 2,
        amount: 2,
        by: REVIEWER,
      }),
    ]);
  });

  it('token_budget: stop ends the run with the limit reason; a bad or unknown decision is refused and changes nothing', async () => {
    const heavy = (expression: string): ScriptedTurn => ({
      ...calc(expression),
      usage: { promptTokens: 300, completionTokens: 300 },
    });
    const run = await harness.start([heavy('1+1'), heavy('2+2'), { answer: 'Four.' }], 'q', {
      forceFinalAnswer: false,
      limits: { tokenBudget: 1000, onReached: 'ask' },
    });
    const request = await waitForBudget(harness.agents, run.workflowId);
    expect(request).toMatchObject({ limit: 'token_budget', current: 1000, unit: 'tokens' });
    const handle = harness.agents.client.workflow.getHandle(run.workflowId);
    await expect(harness.agents.handle(run.workflowId).raiseBudget(5, 'b9')).rejects.toMatchObject({
      reason: 'not_pending',
    });
    await expect(harness.agents.handle(run.workflowId).raiseBudget(-3)).rejects.toBeInstanceOf(DecisionRefusedError);
    // N13: a raise may not take a limit past what a config may say (here 1,000,000,000 tokens).
    await expect(harness.agents.handle(run.workflowId).raiseBudget(1_000_000_000)).rejects.toThrow(
      /raising the token budget to 1000001000 would pass its maximum of 1000000000/,
    );
    expect((await harness.agents.handle(handle.workflowId).getPending()).budget?.requestId).toBe('b1');

    expect(await harness.agents.handle(run.workflowId).stopAtBudget()).toMatchObject({
      decision: 'stop',
      limit: 'token_budget',
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('token_budget');
    expect(result.trace.terminationDetail).toContain(`${TEST_REVIEWER} via client chose to stop there`);
    expect(result.trace.budgetRequests?.[0]).toMatchObject({ outcome: 'stop', by: REVIEWER });
  });

  it('timeout: the iteration in flight finishes, no new one starts until a raise re-arms the time budget', async () => {
    const run = await harness.start([{ ...calc('1+1'), delayMs: 2500 }, calc('2+2'), { answer: 'Four.' }], 'q', {
      limits: { timeoutSeconds: 1, onReached: 'ask' },
    });
    const request = await waitForBudget(harness.agents, run.workflowId);
    expect(request).toMatchObject({ limit: 'timeout', current: 1, unit: 'seconds' });
    // The slow first iteration still completes (its tool runs); the second model call waits for the decision.
    await expect.poll(async () => (await run.getTrace()).steps.length, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(harness.model.requests(run.modelName)).toHaveLength(1);
    await harness.agents.handle(run.workflowId).raiseBudget(60);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    // The slow call was not cut off by the time budget: its step is there with its observation.
    expect(result.trace.steps[0]).toMatchObject({ observationData: { result: 2 } });
    expect(result.trace.budgetRequests).toEqual([
      expect.objectContaining({ limit: 'timeout', outcome: 'raise', amount: 60 }),
    ]);
  });

  it('no decision before approvals.timeout: the run stops as it would have without asking', async () => {
    const run = await harness.start([calc('1+1'), calc('2+2')], 'q', {
      forceFinalAnswer: false,
      limits: { maxIterations: 1, onReached: 'ask' },
      approvals: { timeout: '1s' },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('max_iterations');
    expect(result.trace.terminationDetail).toBe('reached the limit of 1 iterations; nobody raised it within 1s');
    expect(result.trace.budgetRequests).toEqual([expect.objectContaining({ outcome: 'timeout' })]);
  });

  it('a raise lasts across continue-as-new, and request IDs keep counting over the chain', async () => {
    const run = await harness.start([calc('1+1'), calc('2+2'), calc('3+3'), calc('4+4'), { answer: 'Done.' }], 'q', {
      forceFinalAnswer: false,
      limits: { maxIterations: 2, onReached: 'ask' },
      history: { maxStepsPerRun: 2 },
    });
    await waitForBudget(harness.agents, run.workflowId, 'b1');
    await harness.agents.handle(run.workflowId).raiseBudget(1);
    // The raise to 3 was carried into the next run: it asks again at 3, under a new ID.
    const second = await waitForBudget(harness.agents, run.workflowId, 'b2');
    expect(second).toMatchObject({ current: 3 });
    await harness.agents.handle(run.workflowId).raiseBudget(5);
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.trace.run).toBeGreaterThan(1);
    expect(result.trace.budgetRequests?.map((record) => [record.requestId, record.from, record.amount])).toEqual([
      ['b1', 2, 1],
      ['b2', 3, 5],
    ]);
  });
});
