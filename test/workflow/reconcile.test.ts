import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import { AgentClient } from '../../src/client/agent-client';
import { decideSignal } from '../../src/shared/messages';
import type { ReActStep } from '../../src/shared/types';
import { createListTools } from '../../src/worker/activities/tools';
import { defineTool } from '../../src/worker/tools/define-tool';
import { ToolRegistry } from '../../src/worker/tools/registry';
import { TEST_REVIEWER, useHarness, waitForPending } from '../support/harness';
import { CLI } from '../support/worker-process';

/*
 * A payment whose provider has no idempotency keys: the handler's first attempt applies the payment and then hangs,
 * so its outcome is lost (the attempt times out). What `reconcile` finds is scripted by the call's `found` argument.
 */

/** Payments applied, per call key: the truth the tests compare the trace with. */
const applied = new Map<string, number>();
/** Handler invocations per call key. */
const invocations = new Map<string, number>();

const schema = z.object({
  amount: z.number(),
  /** What `reconcile` will say; `not_done` also makes the lost first attempt hang before it applies anything. */
  found: z.enum(['done', 'not_done', 'unknown']),
});

type Payment = z.infer<typeof schema>;

async function pay({ amount, found }: Payment, key: string, signal: AbortSignal): Promise<object> {
  const invocation = (invocations.get(key) ?? 0) + 1;
  invocations.set(key, invocation);
  const lose = invocation === 1;
  if (!(lose && found === 'not_done')) applied.set(key, (applied.get(key) ?? 0) + 1);
  if (lose) await new Promise((resolve) => signal.addEventListener('abort', resolve)); // the outcome nobody sees
  return { paid: amount, receipt: `r-${invocation}` };
}

function reconcilePayment(key: string, { amount, found }: Payment) {
  if (found === 'done') return { status: 'done' as const, result: { paid: amount, receipt: 'found-by-reference' } };
  if (found === 'not_done') return { status: 'not_done' as const };
  return { status: 'unknown' as const, detail: 'the provider search is down' };
}

/** Retried once by Temporal: the retry finds its predecessor unseen and reconciles inside the activity. */
const pay2 = defineTool({
  name: 'pay',
  description: 'Pays an amount; the provider has no idempotency keys.',
  schema,
  timeout: '1s',
  retry: { maximumAttempts: 2, initialInterval: '100ms', backoffCoefficient: 1 },
  handler: (args, { idempotencyKey, signal }) => pay(args, idempotencyKey, signal),
  reconcile: reconcilePayment,
});

/** One attempt only: when it times out the workflow reconciles with a `reconcileTool` activity. */
const payOnce = defineTool({
  name: 'pay_once',
  description: 'Pays an amount, one attempt; the provider has no idempotency keys.',
  schema,
  timeout: '1s',
  handler: (args, { idempotencyKey, signal }) => pay(args, idempotencyKey, signal),
  reconcile: reconcilePayment,
});

/** The same payment with no way to find out: today's behaviour, but the trace says the effect may have happened. */
const payBlind = defineTool({
  name: 'pay_blind',
  description: 'Pays an amount; cannot reconcile.',
  schema,
  timeout: '1s',
  retry: { maximumAttempts: 2, initialInterval: '100ms', backoffCoefficient: 1 },
  handler: (args, { idempotencyKey, signal }) => pay(args, idempotencyKey, signal),
});

/**
 * A local tool that reconciles: a local activity re-run after its worker died starts again at attempt 1, so it asks
 * `reconcile` before every first attempt. `found: 'done'` plays the payment a crashed earlier run already made.
 */
const payLocal = defineTool({
  name: 'pay_local',
  description: 'Pays an amount from the worker that holds the run; the provider has no idempotency keys.',
  schema,
  local: true,
  handler: ({ amount }, { idempotencyKey }) => {
    invocations.set(idempotencyKey, (invocations.get(idempotencyKey) ?? 0) + 1);
    applied.set(idempotencyKey, (applied.get(idempotencyKey) ?? 0) + 1);
    return { paid: amount, receipt: 'r-local' };
  },
  reconcile: reconcilePayment,
});

/** Reconcile lookups per call key, for a provider whose search is down the first time it is asked. */
const lookups = new Map<string, number>();

/**
 * Every attempt applies the payment and then hangs, so each outcome is lost; `reconcile` answers `unknown` the first
 * time a key is looked up, then the truth. A person's "run it again" must pay once more, and no more than once.
 */
const payFlaky = defineTool({
  name: 'pay_flaky',
  description: 'Pays an amount through a provider that loses every answer.',
  schema: z.object({ amount: z.number() }),
  timeout: '1s',
  retry: { maximumAttempts: 2, initialInterval: '100ms', backoffCoefficient: 1 },
  handler: async ({ amount }, { idempotencyKey, signal }) => {
    invocations.set(idempotencyKey, (invocations.get(idempotencyKey) ?? 0) + 1);
    applied.set(idempotencyKey, (applied.get(idempotencyKey) ?? 0) + 1);
    await new Promise((resolve) => signal.addEventListener('abort', resolve));
    return { paid: amount, receipt: 'never-seen' };
  },
  reconcile: (key, { amount }) => {
    const lookup = (lookups.get(key) ?? 0) + 1;
    lookups.set(key, lookup);
    if (lookup === 1) return { status: 'unknown' as const, detail: 'the provider search is down' };
    return (applied.get(key) ?? 0) > 0
      ? { status: 'done' as const, result: { paid: amount, receipt: 'found-by-reference' } }
      : { status: 'not_done' as const };
  },
});

const harness = useHarness({ tools: [pay2, payOnce, payBlind, payLocal, payFlaky] });
const thought = 'The invoice is due, so I pay it now.';
const payTurns = (tool: string, found: Payment['found']) => [
  { thought, toolCalls: [{ name: tool, args: { amount: 40, found } }] },
  { answer: 'The invoice is settled.' },
];
const by = { identity: TEST_REVIEWER, channel: 'client' };

function outcomeOf(firstRunId: string): { applied: number; invocations: number } {
  const key = `${firstRunId}:c1-1`;
  return { applied: applied.get(key) ?? 0, invocations: invocations.get(key) ?? 0 };
}

describe('reconcile: a call whose outcome nobody saw', () => {
  it('done: the retry takes the result reconcile found and does not pay again', async () => {
    const run = await harness.start(payTurns('pay', 'done'));
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toContain('found-by-reference');
    expect(step.isError).toBe(false);
    expect(step.effect).toEqual({ attempts: 2, mayHaveHappened: true, noticedBy: 'retry', reconcile: 'done' });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
  });

  it('not_done: the retry runs the call, which pays once', async () => {
    const run = await harness.start(payTurns('pay', 'not_done'));
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toContain('r-2');
    expect(step.effect).toMatchObject({ attempts: 2, mayHaveHappened: true, reconcile: 'not_done' });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 2 });
  });

  it('attempts used up by a timeout: the workflow reconciles before telling the model it failed', async () => {
    const run = await harness.start(payTurns('pay_once', 'done'));
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toContain('found-by-reference');
    expect(step.isError).toBe(false);
    expect(step.effect).toEqual({ attempts: 1, mayHaveHappened: true, noticedBy: 'workflow', reconcile: 'done' });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
  });

  it('unknown → approve: a person is asked through the approval path, and "run again" runs it', async () => {
    const run = await harness.start(payTurns('pay', 'unknown'));
    const pending = await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    expect(pending.approvals).toEqual([
      expect.objectContaining({
        callId: 'c1-1:uncertain',
        tool: 'pay',
        reason: 'uncertain_effect',
        detail: 'the provider search is down',
        question: expect.stringContaining('This pay call may have happened') as string,
      }),
    ]);
    // Edit does not fit a call that already ran: refused by the validator, so nothing enters history.
    await expect(
      harness.agents
        .handle(run.workflowId)
        .decide('c1-1:uncertain', { decision: 'edit', args: { amount: 1, found: 'done' } }),
    ).rejects.toThrow(/cannot be edited/);
    // The service that started the run sees it in run.pending() as an approval that says what it is.
    for await (const item of run.pending()) {
      expect(item).toMatchObject({ kind: 'approval', callId: 'c1-1:uncertain', reason: 'uncertain_effect' });
      await item.approve();
      break;
    }
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toContain('r-2');
    expect(step.effect).toMatchObject({
      mayHaveHappened: true,
      reconcile: 'unknown',
      decision: { kind: 'approve', by },
    });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 2, invocations: 2 }); // the person chose to pay again
  });

  it('"run it again" skips reconcile only before the re-run: its lost attempt is looked up, not paid a third time', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'pay_flaky', args: { amount: 5 } }] },
      { answer: 'The invoice is settled.' },
    ]);
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    await harness.agents.handle(run.workflowId).approve('c1-1:uncertain');
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    // The re-run's first attempt paid and lost its answer; its retry asked reconcile, which found that payment.
    expect(step.observation).toContain('found-by-reference');
    expect(step.effect).toMatchObject({
      mayHaveHappened: true,
      noticedBy: 'retry',
      reconcile: 'done',
      decision: { kind: 'approve', by },
    });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 2, invocations: 2 }); // the first call and the approved one
  });

  it('unknown → respond: treated as done with the result the person gives; the call does not run again', async () => {
    const run = await harness.start(payTurns('pay', 'unknown'));
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    await harness.agents
      .handle(run.workflowId)
      .respond('c1-1:uncertain', 'Paid 40, receipt r-1 (checked in the bank UI).');
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toBe('Paid 40, receipt r-1 (checked in the bank UI).');
    expect(step.isError).toBe(false);
    expect(step.effect).toMatchObject({ reconcile: 'unknown', decision: { kind: 'respond', by } });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
    const audit = await harness.agents.handle(run.workflowId).audit();
    expect(audit).toEqual([
      expect.objectContaining({ payload: expect.objectContaining({ callId: 'c1-1:uncertain' }) as object }),
    ]);
  });

  it.each([
    { item: 'an uncertain call', tool: 'pay', found: 'unknown' as const, callId: 'c1-1:uncertain', require: [] },
    { item: 'an ordinary approval', tool: 'pay_blind', found: 'done' as const, callId: 'c1-1', require: ['pay_blind'] },
  ])('respond to $item: the result a person gives is cut like any observation (issue 45)', async (item) => {
    const run = await harness.start(payTurns(item.tool, item.found), 'q', {
      approvals: { require: item.require },
      history: { maxObservationTokens: 50 },
    });
    await waitForPending(harness, run.workflowId, { callId: item.callId });
    await harness.agents.handle(run.workflowId).respond(item.callId, `Paid 40. ${'receipt line '.repeat(10_000)}`);
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation?.startsWith('Paid 40. receipt line')).toBe(true);
    expect(step.observation?.length).toBeLessThan(400);
    expect(step.truncated).toBe(true);
    // The model read the cut text, not 120,000 characters.
    const [, next] = harness.model.requests(run.modelName);
    const tool = next?.messages.find((message) => message.role === 'tool');
    expect(String(tool?.content).length).toBeLessThan(400);
  });

  it("only the tool's approvers may decide whether an uncertain call runs again (issue 45)", async () => {
    const run = await harness.start(payTurns('pay', 'unknown'), 'q', {
      approvals: { approvers: { pay: ['role:finance'] } },
    });
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    const bob = new AgentClient({ client: harness.client, identity: 'bob', channel: 'client' });
    for (const attempt of [
      () => bob.handle(run.workflowId).approve('c1-1:uncertain'),
      () => bob.handle(run.workflowId).respond('c1-1:uncertain', 'Paid already, trust me.'),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ reason: 'not_allowed' });
    }
    // An anonymous raw signal (the Temporal UI's) decides nothing either.
    await harness.client.workflow
      .getHandle(run.workflowId)
      .signal(decideSignal, { callId: 'c1-1:uncertain', decision: 'approve' });
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals.map((call) => call.callId)).toEqual([
      'c1-1:uncertain',
    ]);
    const alice = new AgentClient({ client: harness.client, identity: 'alice', roles: ['finance'], channel: 'client' });
    await alice.handle(run.workflowId).reject('c1-1:uncertain', 'I will check the bank first.');
    const result = await run.result();
    expect(result.trace.steps[0]?.effect).toMatchObject({ decision: { kind: 'reject', by: { identity: 'alice' } } });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
  });

  it('unknown → reject: skipped, the model reads that it may have happened', async () => {
    const run = await harness.start(payTurns('pay', 'unknown'));
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    await harness.agents.handle(run.workflowId).reject('c1-1:uncertain', 'finance will check by hand');
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toBe(
      '[skipped] A person chose not to run pay again (its effect may have happened): finance will check by hand',
    );
    expect(step.effect).toMatchObject({ reconcile: 'unknown', decision: { kind: 'reject', by } });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
  });

  it('a tool without reconcile runs again as before, and its trace says the effect may have happened', async () => {
    const run = await harness.start(payTurns('pay_blind', 'done'));
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.effect).toEqual({ attempts: 2, mayHaveHappened: true, noticedBy: 'retry' });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 2, invocations: 2 }); // the duplicate reconcile prevents
  });

  it('a local tool that reconciles asks before its first attempt: a payment an earlier run made is not made again', async () => {
    const run = await harness.start(payTurns('pay_local', 'done'));
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    expect(step.observation).toContain('found-by-reference');
    expect(step.effect).toEqual({
      attempts: 1,
      mayHaveHappened: true,
      noticedBy: 'local_first_attempt',
      reconcile: 'done',
    });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 0, invocations: 0 });
  });

  it('a local tool whose first-attempt reconcile says unknown runs once when a person says run it', async () => {
    const run = await harness.start(payTurns('pay_local', 'unknown'));
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    await harness.agents.handle(run.workflowId).approve('c1-1:uncertain');
    const result = await run.result();
    const step = result.trace.steps[0] as ReActStep;
    // The re-run does not ask reconcile again (it would say unknown again and ask the person a second time).
    expect(step.observation).toContain('r-local');
    expect(step.effect).toMatchObject({ reconcile: 'unknown', decision: { kind: 'approve', by } });
    expect(outcomeOf(run.firstRunId)).toEqual({ applied: 1, invocations: 1 });
    const audit = await harness.agents.handle(run.workflowId).audit();
    expect(audit.map((entry) => entry.payload.callId)).toEqual(['c1-1:uncertain']);
  });

  it('approve --always from the CLI on an uncertain call says what the run did: that call only (T10)', async () => {
    const run = await harness.start(payTurns('pay_local', 'unknown'));
    await waitForPending(harness, run.workflowId, { callId: 'c1-1:uncertain' });
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [CLI, 'approve', run.workflowId, 'c1-1:uncertain', '--always'],
      { env: { ...process.env, TEMPORAL_ADDRESS: inject('temporalAddress') } },
    );
    expect(stdout).toBe('approved c1-1:uncertain (pay_local)\n');
    expect(stderr).toBe(
      'note: --always not applied: approving c1-1:uncertain runs that call again (it may have happened), later calls of the tool still ask\n',
    );
    const step = (await run.result()).trace.steps[0] as ReActStep;
    expect(step.effect?.decision).toMatchObject({ kind: 'approve' });
    expect(step.effect?.decision).not.toHaveProperty('always');
  });

  it('reconcile-capable tools run remotely unless they say local: true, and the catalog says they reconcile', async () => {
    const catalog = await createListTools(new ToolRegistry([pay2, payLocal, payBlind]))();
    expect(catalog.tools.map(({ name, local, reconciles }) => ({ name, local, reconciles }))).toEqual([
      { name: 'pay', local: false, reconciles: true },
      { name: 'pay_local', local: true, reconciles: true },
      { name: 'pay_blind', local: true, reconciles: undefined },
    ]);
  });
});
