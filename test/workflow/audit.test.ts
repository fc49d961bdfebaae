import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { auditTrail } from '../../src/client/audit';
import { decideSignal } from '../../src/shared/messages';
import { TEST_REVIEWER, useHarness, waitForPending } from '../support/harness';

const harness = useHarness();
const thought = 'The user asked for these records to go, so I delete them.';

describe('the audit trail is the run history', () => {
  it('lists who decided what, when, by which channel and on which arguments, refused edits and signals included', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'a1' } }] },
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'a2' } }] },
      {
        thought: 'I need to know whether to go on with the rest.',
        toolCalls: [{ name: 'request_clarification', args: { question: 'Delete the rest too?' } }],
      },
      { answer: 'Done.' },
    ]);
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    await expect(harness.agents.handle(run.workflowId).edit('c2-1', { id: 7 })).rejects.toThrow(/Edit refused/);
    // A raw signal, as pasted into the Temporal UI: its channel is `signal` whatever the JSON says.
    await harness.client.workflow.getHandle(run.workflowId).signal(decideSignal, {
      callId: 'c2-1',
      decision: 'reject',
      reason: 'keep a2',
      identity: 'dana',
      channel: 'inbox',
    });
    await waitForPending(harness, run.workflowId, { approvals: 0, question: true });
    const carol = new AgentClient({ client: harness.client, identity: 'carol', roles: ['ops'], channel: 'cli' });
    await carol.handle(run.workflowId).answer('No, stop there.');
    await run.result();

    const trail = await auditTrail(harness.client, run.workflowId);
    expect(trail.map(({ message, via, identity, channel }) => [message, via, identity, channel])).toEqual([
      ['decide', 'update', TEST_REVIEWER, 'client'],
      ['decide', 'update', TEST_REVIEWER, 'client'],
      ['decide', 'signal', 'dana', 'signal'],
      ['answer', 'update', 'carol', 'cli'],
    ]);
    expect(trail[0]).toMatchObject({
      payload: { callId: 'c1-1', decision: 'approve' },
      result: { decision: 'approve', tool: 'delete_record', args: { id: 'a1' } },
    });
    expect(trail[0]?.sender).toMatch(/@/); // the Temporal client identity that carried it
    expect(trail[1]).toMatchObject({ payload: { decision: 'edit', args: { id: 7 } } });
    expect(trail[1]?.refused).toMatch(/^Edit refused, call c2-1 is still pending/);
    expect(trail[2]).toMatchObject({ payload: { decision: 'reject', reason: 'keep a2' } });
    expect(trail[3]).toMatchObject({ roles: ['ops'], payload: { answer: 'No, stop there.' } });
    for (const entry of trail) expect(Date.parse(entry.at)).toBeGreaterThan(Date.now() - 120_000);
  });
});
