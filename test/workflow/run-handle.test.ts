import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgentClient, DecisionRefusedError, type PendingHandle } from '../../src';
import type { AttachRefusedError } from '../../src/client/errors';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { followPending } from '../../src/client/pending-handles';
import { useHarness, waitForPending } from '../support/harness';
import { recordedEffects } from '../support/test-tools';
import { freePort } from '../../src/testing/free-port';

const harness = useHarness();
const thought = 'The user asked to remove these records, so the delete tool is the right action.';
const deleteCall = (id: string): ScriptedTurn => ({ thought, toolCalls: [{ name: 'delete_record', args: { id } }] });
const question: ScriptedTurn = {
  thought: 'I do not know which environment is meant, so I ask before deleting anything else.',
  toolCalls: [{ name: 'request_clarification', args: { question: 'Which environment?' } }],
};

describe('decisions from the run handle', () => {
  it('for await (const p of run.pending()): each call and question once, as it appears, until the run ends', async () => {
    const run = await harness.start([deleteCall('h1'), question, deleteCall('h2'), { answer: 'both deleted' }]);
    const seen: Array<{ kind: string; callId: string }> = [];
    for await (const p of run.pending()) {
      seen.push({ kind: p.kind, callId: p.callId });
      if (p.kind === 'question') await p.answer('staging');
      else await p.approve();
    }
    // The loop ended by itself: the run closed.
    expect(seen).toEqual([
      { kind: 'approval', callId: 'c1-1' },
      { kind: 'question', callId: 'c2-1' },
      { kind: 'approval', callId: 'c3-1' },
    ]);
    const result = await run.result();
    expect(result.finalAnswer).toBe('both deleted');
    expect(result.trace.steps[1]).toMatchObject({ observation: 'staging' });
    expect(recordedEffects.get(`${run.firstRunId}:c1-1`)).toBe(1);
    expect(recordedEffects.get(`${run.firstRunId}:c3-1`)).toBe(1);
  });

  it('a decision that does not fit the item is refused and sends nothing; the call still waits', async () => {
    const run = await harness.start([deleteCall('h3'), { answer: 'done' }]);
    const iterator = run.pending();
    const first = (await iterator.next()).value as PendingHandle;
    expect(first).toMatchObject({ kind: 'approval', tool: 'delete_record', args: { id: 'h3' } });
    await expect(first.answer('yes')).rejects.toThrow(DecisionRefusedError);
    await expect(first.raise(5)).rejects.toThrow(
      /is a pending approval: it takes approve, reject, edit or respond, not raise/,
    );
    expect((await waitForPending(harness, run.workflowId)).approvals).toHaveLength(1);
    await first.reject('not today');
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
    const step = (await run.result()).trace.steps[0];
    expect(step).toMatchObject({ decision: { kind: 'reject' } });
    expect(step?.observation).toContain('not today');
  });
});

describe('a run that is not running, a server that is not there', () => {
  it('a decision on a closed run is refused at once in one line, even with no worker to answer a query', async () => {
    // A queue nobody polls: the run never had a worker, so a query to it could only wait.
    const agents = new AgentClient({ client: harness.client, taskQueue: `nobody-${randomUUID()}` });
    const run = await agents.start('q');
    await harness.client.workflow.getHandle(run.workflowId).terminate('closed for the test');
    const refusal = { name: 'DecisionRefusedError', reason: 'not_pending' };
    await expect(run.approve()).rejects.toMatchObject({
      ...refusal,
      message: `Run ${run.workflowId} is terminated: nothing waits for a decision`,
    });
    await expect(run.stopAtBudget()).rejects.toMatchObject(refusal);
    // With the call named, the update itself is refused by the server: the same error, not Temporal's own.
    await expect(run.approve('c1-1')).rejects.toMatchObject({
      ...refusal,
      message: `Run ${run.workflowId} is not running: nothing waits for a decision`,
    });
  });

  it('result() of a run no worker takes says so, once, as a process warning naming the task queue', async () => {
    const taskQueue = `nobody-${randomUUID()}`;
    const run = await new AgentClient({ client: harness.client, taskQueue }).start('q');
    const warnings: Array<Error & { code?: string }> = [];
    const listener = (warning: Error & { code?: string }) => {
      if (warning.code === 'DURABLE_AGENT_NO_WORKER') warnings.push(warning);
    };
    process.on('warning', listener);
    try {
      const waiting = run.result().catch(() => undefined);
      await expect.poll(() => warnings.length, { timeout: 25_000, interval: 200 }).toBe(1);
      expect(warnings[0]?.message).toMatch(
        new RegExp(
          `^run ${run.workflowId} has waited 1\\d s for a worker: none has taken its task on task queue "${taskQueue}"`,
        ),
      );
      await harness.client.workflow.getHandle(run.workflowId).terminate('test over');
      await waiting;
    } finally {
      process.off('warning', listener);
    }
  }, 40_000);

  it('connect() to an address nobody serves names it and the command that starts a server', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const error = await AgentClient.connect({ address }).catch((thrown: unknown) => thrown as Error);
    expect(error).toMatchObject({
      name: 'ServerUnreachableError',
      message:
        `cannot reach the Temporal server at ${address} (TEMPORAL_ADDRESS): no answer before the deadline. ` +
        'Start one (npx durable-react-agent server), or set TEMPORAL_ADDRESS to where it listens.',
    });
  }, 30_000);
});

describe('following pending items', () => {
  it('an abort ends the iteration at once, even while it sleeps between listings', async () => {
    const run = await harness.start([deleteCall('h4'), { answer: 'done' }]);
    const controller = new AbortController();
    const iterator = followPending(harness.client, (id) => harness.agents.handle(id), run.workflowId, {
      pollMs: 30_000,
      signal: controller.signal,
    });
    expect((await iterator.next()).value).toMatchObject({ kind: 'approval', callId: 'c1-1' });
    // Nothing new waits: the next listing finds only the item already yielded, and the iterator sleeps.
    const next = iterator.next();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(Date.now() - started).toBeLessThan(5_000);
    await harness.agents.handle(run.workflowId).approve();
    expect((await run.result()).finalAnswer).toBe('done');
  });
});

describe("start(…, { workflowId, ifRunning: 'attach' })", () => {
  it('a retried start with the same business key gets the running run; without attach it is refused', async () => {
    const workflowId = `order-${randomUUID()}`;
    const modelName = `attach-${randomUUID()}`;
    harness.model.script(modelName, [deleteCall('order'), { answer: 'done' }]);
    const first = await harness.agents.start('delete the order', { model: modelName }, { workflowId });
    const again = await harness.agents.start(
      'delete the order',
      { model: modelName },
      {
        workflowId,
        ifRunning: 'attach',
      },
    );
    expect(again.workflowId).toBe(workflowId);
    await expect(harness.agents.start('delete the order', { model: modelName }, { workflowId })).rejects.toBeInstanceOf(
      WorkflowExecutionAlreadyStartedError,
    );
    // One run: the attached handle decides and reads the same run the first start began.
    await waitForPending(harness, workflowId);
    await again
      .pending()
      .next()
      .then((p) => (p.value as PendingHandle).approve());
    expect((await first.result()).finalAnswer).toBe('done');
    const runs = [];
    for await (const execution of harness.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
      runs.push(execution.runId);
    }
    expect(runs).toHaveLength(1);
  });

  it('a running run started with another query or config is refused by name, and keeps running; whitespace is no difference', async () => {
    const workflowId = `order-${randomUUID()}`;
    const modelName = `attach-${randomUUID()}`;
    harness.model.script(modelName, [deleteCall('other'), { answer: 'done' }]);
    const first = await harness.agents.start(
      'delete the   order\n',
      { model: modelName, limits: { maxIterations: 50 } },
      { workflowId },
    );
    const stricter = harness.agents.start(
      'refund order 42 only after approval',
      { model: modelName, approvals: { require: ['calculator'] }, limits: { maxIterations: 2 } },
      { workflowId, ifRunning: 'attach' },
    );
    const refusal = (await stricter.catch((error: unknown) => error)) as AttachRefusedError;
    expect(refusal.name).toBe('AttachRefusedError');
    expect(refusal.workflowId).toBe(workflowId);
    expect(refusal.differences).toEqual(['query', 'config.approvals.require', 'config.limits.maxIterations']);
    expect(refusal.message).toMatch(
      /started with another query and config \(approvals\.require, limits\.maxIterations\)/,
    );
    expect(refusal.message).toContain('another workflowId');
    // The same query re-wrapped, with the same config, is the same request: it attaches.
    const same = await harness.agents.start(
      ' delete the order',
      { model: modelName, limits: { maxIterations: 50 } },
      { workflowId, ifRunning: 'attach' },
    );
    expect(same.workflowId).toBe(workflowId);
    await waitForPending(harness, workflowId);
    await harness.agents.handle(workflowId).approve();
    expect((await first.result()).finalAnswer).toBe('done');
  });
});
