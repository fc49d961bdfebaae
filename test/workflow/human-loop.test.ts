import { describe, expect, it } from 'vitest';
import { AgentRunError } from '../../src/client';
import { ErrorType } from '../../src/shared/errors';
import { decideSignal } from '../../src/shared/messages';
import { AgentStatusKey } from '../../src/shared/search-attributes';
import { TEST_REVIEWER, useHarness, waitForPending } from '../support/harness';

const REVIEWER = { identity: TEST_REVIEWER, channel: 'client' };
import { recordedEffects } from '../support/test-tools';

const harness = useHarness();
const thought = 'These records are obsolete duplicates, so deleting them is what was asked.';

describe('parallel calls, clarification, deadlines and policies', () => {
  it('two parallel pending calls are decided independently, in reverse order; each runs when its decision arrives', async () => {
    const run = await harness.start([
      {
        thought,
        toolCalls: [
          { name: 'delete_record', args: { id: 'a' } },
          { name: 'delete_record', args: { id: 'b' } },
        ],
      },
      { answer: 'done' },
    ]);
    await waitForPending(harness, run.workflowId, { approvals: 2 });
    await harness.agents.handle(run.workflowId).approve('c1-2');
    // The second call ran while the first still waits: no head-of-line blocking.
    for (let attempt = 0; attempt < 100 && !recordedEffects.has(`${run.firstRunId}:c1-2`); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(recordedEffects.get(`${run.firstRunId}:c1-2`)).toBe(1);
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals.map((call) => call.callId)).toEqual([
      'c1-1',
    ]);
    await harness.agents.handle(run.workflowId).reject('c1-1', 'keep a');
    const result = await run.result();
    expect(
      result.trace.steps
        .slice(0, 2)
        .map((step) => [step.action.type === 'tool_call' && step.action.callId, step.decision?.kind]),
    ).toEqual([
      ['c1-1', 'reject'],
      ['c1-2', 'approve'],
    ]);
  });

  it('clarification: the model asks, the run waits (AwaitingInput), and the answer is the observation', async () => {
    const run = await harness.start([
      {
        toolCalls: [{ name: 'request_clarification', args: { question: 'Which environment: staging or production?' } }],
      },
      { answer: 'Deploying to staging.' },
    ]);
    const pending = await waitForPending(harness, run.workflowId, { approvals: 0, question: true });
    expect(pending.question).toMatchObject({ callId: 'c1-1', question: 'Which environment: staging or production?' });
    expect((await run.getStatus()).state).toBe('awaiting_input');
    const attributes = (await harness.client.workflow.getHandle(run.workflowId).describe()).typedSearchAttributes;
    expect(attributes.get(AgentStatusKey)).toBe('AwaitingInput');
    expect(await harness.agents.handle(run.workflowId).answer('staging')).toBe(
      'Which environment: staging or production?',
    );
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({
      action: { type: 'clarification', question: 'Which environment: staging or production?' },
      observation: 'staging',
    });
    const toolMessage = harness.model.requests(run.modelName)[1]?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toBe('staging');
    await expect(harness.agents.handle(run.workflowId).answer('again')).rejects.toThrow();
  });

  it('approval timeout with approvals.onTimeout "reject": the model is told no decision arrived and continues', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'delete_record', args: { id: 't1' } }] }, { answer: 'left it alone' }],
      'q',
      { approvals: { timeout: '2s' } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('success');
    expect(result.trace.steps[0]).toMatchObject({ decision: { kind: 'timeout' }, isError: true });
    expect(result.trace.steps[0]?.observation).toContain('no decision arrived within 2s; the call was not run');
    expect(recordedEffects.has(`${run.firstRunId}:c1-1`)).toBe(false);
  });

  it('approval timeout with approvals.onTimeout "end": the run ends with reason timeout', async () => {
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: 'delete_record', args: { id: 't2' } }] },
        { answer: 'Stopped: nobody approved.' },
      ],
      'q',
      { approvals: { timeout: 2, onTimeout: 'end' } },
    );
    const result = await run.result();
    expect(result.terminationReason).toBe('timeout');
    expect(result.trace.terminationDetail).toBe('no decision on call c1-1 (delete_record) arrived within 2s');
    expect(result.finalAnswer).toBe('Stopped: nobody approved.'); // the forced final answer
  });

  it('always: approves this call and every later call of the same tool in the run', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'x1' } }] },
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'x2' } }] },
      { answer: 'both gone' },
    ]);
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).approve(undefined, { always: true });
    const result = await run.result();
    expect(result.trace.steps.map((step) => step.observation)).toEqual(['deleted x1', 'deleted x2', null]);
    expect(result.trace.steps[0]?.decision).toEqual({ kind: 'approve', always: true, by: REVIEWER });
    expect(result.trace.steps[1]?.decision).toBeUndefined(); // never waited
  });

  it('a rule over the arguments, and config that requires or waives confirmation', async () => {
    const small = { thought, toolCalls: [{ name: 'transfer', args: { amount: 50, to: 'bob' } }] };
    const large = { thought, toolCalls: [{ name: 'transfer', args: { amount: 500, to: 'bob' } }] };
    const run = await harness.start([small, large, { answer: 'ok' }]);
    const pending = await waitForPending(harness, run.workflowId);
    expect(pending.approvals[0]).toMatchObject({ callId: 'c2-1', args: { amount: 500, to: 'bob' } });
    await harness.agents.handle(run.workflowId).approve();
    expect((await run.result()).trace.steps.map((step) => step.decision)).toEqual([
      undefined,
      { kind: 'approve', by: REVIEWER },
      undefined,
    ]);

    // A rule-based policy is the run's to waive: the large transfer runs without a decision.
    const waived = await harness.start([large, { answer: 'ok' }], 'q', { approvals: { skip: ['transfer'] } });
    expect((await waived.result()).trace.steps[0]).toMatchObject({ observation: 'sent 500 to bob' });
    expect((await waived.result()).trace.steps[0]?.decision).toBeUndefined();

    const required = await harness.start(
      [{ thought, toolCalls: [{ name: 'calculator', args: { expression: '1+1' } }] }, { answer: 'ok' }],
      'q',
      { approvals: { require: ['calculator'] } },
    );
    expect((await waitForPending(harness, required.workflowId)).approvals[0]?.tool).toBe('calculator');
    await harness.agents.handle(required.workflowId).approve();
    expect((await required.result()).trace.steps[0]?.observationData).toMatchObject({ result: 2 });
  });

  it('a config cannot waive a tool whose author made confirmation mandatory: the run is refused at start', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'delete_record', args: { id: 'mandatory' } }] }, { answer: 'ok' }],
      'q',
      { approvals: { skip: ['calculator', 'delete_record'] } },
    );
    const failure = await run.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AgentRunError);
    expect(failure).toMatchObject({
      type: ErrorType.InvalidConfig,
      message:
        "approvals.skip cannot waive delete_record: the tool's author requires a person to confirm every call (confirm: 'always')",
    });
    expect(harness.model.requests(run.modelName)).toHaveLength(0); // refused before the first thought
    expect(recordedEffects.get(`${run.workflowId}:c1-1`)).toBeUndefined();
  });

  it('a pending approval survives a worker shutdown; a fresh worker completes the run and the tool runs once', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'd1' } }] },
      { answer: 'deleted' },
    ]);
    await waitForPending(harness, run.workflowId);
    await harness.restartWorker(); // the new worker has an empty cache: it rebuilds the run from history
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const result = await run.result();
    expect(result.finalAnswer).toBe('deleted');
    expect(recordedEffects.get(`${run.firstRunId}:c1-1`)).toBe(1);
  });

  it('a decision sent while no worker runs is kept; the next worker runs the tool exactly once', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'd2' } }] },
      { answer: 'deleted' },
    ]);
    await waitForPending(harness, run.workflowId);
    await harness.restartWorker(async () => {
      // The signal lands in history at once; nothing can act on it until a worker is back.
      await harness.client.workflow
        .getHandle(run.workflowId)
        .signal(decideSignal, { callId: 'c1-1', decision: 'approve' });
      expect(recordedEffects.has(`${run.firstRunId}:c1-1`)).toBe(false);
    });
    expect((await run.result()).trace.steps[0]).toMatchObject({
      decision: { kind: 'approve' },
      observation: 'deleted d2',
    });
    expect(recordedEffects.get(`${run.firstRunId}:c1-1`)).toBe(1);
  });

  it("listing what waits still answers when a waiting run's worker is gone, and names that run", async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'd3' } }] },
      { answer: 'deleted' },
    ]);
    await waitForPending(harness, run.workflowId);
    // Visibility lists the run as waiting before the worker goes.
    await expect
      .poll(async () => (await harness.agents.listPending()).some((item) => item.workflowId === run.workflowId), {
        timeout: 15_000,
      })
      .toBe(true);
    await harness.restartWorker(async () => {
      // No worker polls the run's task queue: its query is never answered, and used to hold the whole listing.
      const unreadable: string[] = [];
      const items = await harness.agents.listPending({ onUnreadable: (id) => unreadable.push(id) });
      expect(unreadable).toContain(run.workflowId);
      expect(items.some((item) => item.workflowId === run.workflowId)).toBe(false);
    });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).finalAnswer).toBe('deleted');
  });
});

describe('signed approvals on a worker that cannot verify them (issue 50, F2)', () => {
  it.each([true, ['delete_record']])(
    'a run with approvals.requireSigned %j is refused at start, in one line, instead of refusing every decision',
    async (requireSigned) => {
      const run = await harness.start([{ answer: 'never asked' }], 'q', { approvals: { requireSigned } });
      await expect(run.result()).rejects.toThrow(
        "approvals.requireSigned needs a worker that verifies signatures: give it the approvers' public keys " +
          '(WORKER_APPROVAL_KEYS, or the plugin option approvalKeys)',
      );
      // The model was never asked: nothing ran before the refusal.
      expect(harness.model.requests(run.modelName)).toEqual([]);
    },
  );
});
