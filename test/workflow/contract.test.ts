import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { queryRun } from '../../src/client/query';
import { getStatusQuery } from '../../src/shared/messages';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { contractValidators, validationProblems } from '../support/contract';
import { useHarness, waitForPending } from '../support/harness';

// The published schemas (docs/contract/) against real traffic on the dev server: what AgentClient sends and what a
// client of another SDK would send by hand, and every answer and result the run gives back. A schema that drifted from
// the code fails here with the path of the field.
const harness = useHarness();
const validators = contractValidators();

function expectValid(message: string, part: 'input' | 'result', value: unknown): void {
  expect(validationProblems(validators(message, part), value), `${message} ${part}: ${JSON.stringify(value)}`).toBe('');
}

/** A payload as a client of another SDK reads it: the contract's encoding, then JSON. */
function decoded(payload: temporal.api.common.v1.IPayload | undefined): unknown {
  expect(Buffer.from(payload?.metadata?.['encoding'] ?? []).toString()).toBe('json/plain');
  return JSON.parse(Buffer.from(payload?.data ?? []).toString('utf8'));
}

/** The workflow's input and every accepted update's argument (by update name), read from the run's history. */
async function sentInHistory(handle: WorkflowHandle): Promise<{ input: unknown; updates: Array<[string, unknown]> }> {
  const events = (await handle.fetchHistory()).events ?? [];
  const started = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const updates = events.flatMap((event): Array<[string, unknown]> => {
    const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    return request ? [[request.name ?? '', decoded(request.args?.payloads?.[0])]] : [];
  });
  return { input: decoded(started), updates };
}

/** Every query of the contract, answered by the run now, checked against its published answer. */
async function expectQueriesValid(handle: WorkflowHandle): Promise<void> {
  for (const query of ['getTrace', 'getStatus', 'getPending', 'getScratchpad', 'getPrompt']) {
    expectValid(query, 'result', await handle.query(query));
  }
  expectValid('getEvents', 'input', { after: 0 });
  expectValid('getEvents', 'result', await handle.query('getEvents', { after: 0 }));
}

const thought = 'The user asked to remove this record, so the delete tool is the right action.';

async function taskQueueOf(workflowId: string): Promise<string> {
  return (await harness.client.workflow.getHandle(workflowId).describe()).taskQueue;
}

describe('the published wire contract describes real traffic', () => {
  it("AgentClient's run: its input and decide payload, every query answer, waitForEvents and the result", async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'delete_record', args: { id: 'r1' } }] }, { answer: 'Deleted r1.' }],
      'delete record r1',
    );
    const handle = harness.client.workflow.getHandle(run.workflowId);
    const pending = await waitForPending(harness, run.workflowId);
    await expectQueriesValid(handle);
    expectValid('waitForEvents', 'result', await handle.executeUpdate('waitForEvents', { args: [{ after: 0 }] }));

    const applied = await harness.agents
      .handle(run.workflowId)
      .approve('c1-1', { argsHash: pending.approvals[0]?.argsHash });
    expectValid('decide', 'result', applied);
    const result: unknown = await handle.result();
    expect(result).toMatchObject({ finalAnswer: 'Deleted r1.', terminationReason: 'success' });
    expectValid('reactAgentWorkflow', 'result', result);
    await expectQueriesValid(handle);

    const sent = await sentInHistory(handle);
    expectValid('reactAgentWorkflow', 'input', sent.input);
    const decisions = sent.updates.filter(([name]) => name === 'decide');
    expect(decisions).toHaveLength(1);
    expectValid('decide', 'input', decisions[0]?.[1]);
  });

  it('a run started, answered and given more budget by hand, as another SDK would, from the schemas alone', async () => {
    const modelName = `scenario-${randomUUID()}`;
    const turns: ScriptedTurn[] = [
      { toolCalls: [{ name: 'request_clarification', args: { question: 'Which environment?' } }] },
      { answer: 'Deploying to staging.' },
    ];
    harness.model.script(modelName, turns);
    const other = await harness.start([{ answer: 'x' }]);
    const taskQueue = await taskQueueOf(other.workflowId);
    await other.result();

    // The grouped config people write, as a start from Python or Go would send it; the second model call needs a raise.
    const input = {
      query: 'deploy the app',
      config: { model: modelName, limits: { maxIterations: 1, onReached: 'ask' } },
    };
    expectValid('reactAgentWorkflow', 'input', input);
    const handle = await harness.client.workflow.start('reactAgentWorkflow', {
      taskQueue,
      workflowId: `contract-${randomUUID()}`,
      args: [input],
    });

    await waitForPending(harness, handle.workflowId, { approvals: 0, question: true });
    await expectQueriesValid(handle);
    const answer = { answer: 'staging', identity: 'ops-bot', channel: 'client' };
    expectValid('answer', 'input', answer);
    const asked: unknown = await handle.executeUpdate('answer', { args: [answer] });
    expect(asked).toBe('Which environment?');
    expectValid('answer', 'result', asked);

    let requestId: string | undefined;
    for (let attempt = 0; attempt < 150 && !requestId; attempt++) {
      const pending: unknown = await handle.query('getPending');
      expectValid('getPending', 'result', pending);
      requestId = (pending as { budget?: { requestId: string } | null }).budget?.requestId;
      if (!requestId) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const raise = { requestId, decision: 'raise', identity: 'ops-bot' };
    expectValid('decideBudget', 'input', raise);
    const raised: unknown = await handle.executeUpdate('decideBudget', { args: [raise] });
    expect(raised).toMatchObject({ decision: 'raise', limit: 'max_iterations', newLimit: 2 });
    expectValid('decideBudget', 'result', raised);

    const result: unknown = await handle.result();
    expect(result).toMatchObject({ finalAnswer: 'Deploying to staging.', terminationReason: 'success' });
    expectValid('reactAgentWorkflow', 'result', result);
    expectValid('reactAgentWorkflow', 'input', (await sentInHistory(handle)).input);
  });

  it('a conversation: sendMessage as sent and answered, and the publishEvents signal, which takes nothing', async () => {
    const run = await harness.start([{ answer: 'Hello.' }, { answer: 'Goodbye.' }], 'hi', {
      conversation: { idleTimeout: '2s' },
    });
    const handle = harness.client.workflow.getHandle(run.workflowId);
    for (let attempt = 0; attempt < 150; attempt++) {
      // Asked the way AgentClient asks: a query in the run's first moments, before its start is checked, finds no
      // handler yet and is asked again (docs/contract/README.md says so to senders of other SDKs).
      const status: unknown = await queryRun(handle, getStatusQuery);
      expectValid('getStatus', 'result', status);
      if ((status as { state: string }).state === 'awaiting_message') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Published with no input: a sender passes no argument at all.
    await handle.signal('publishEvents');
    const message = { text: 'bye' };
    expectValid('sendMessage', 'input', message);
    const queued: unknown = await handle.executeUpdate('sendMessage', { args: [message] });
    expect(queued).toEqual({ turn: 2 });
    expectValid('sendMessage', 'result', queued);
    const result: unknown = await handle.result();
    expect(result).toMatchObject({ finalAnswer: 'Goodbye.' });
    expectValid('reactAgentWorkflow', 'result', result);
    await expectQueriesValid(handle);
  });
});
