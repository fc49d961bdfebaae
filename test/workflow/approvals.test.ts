import { describe, expect, it } from 'vitest';
import { DecisionRefusedError } from '../../src/client/decisions';
import { createRunDecisions } from '../../src/cli/run-decisions';
import fc from 'fast-check';
import { decideSignal, decideUpdate } from '../../src/shared/messages';
import { AgentPendingToolsKey, AgentStatusKey } from '../../src/shared/search-attributes';
import type { ScriptedTurn } from '../../src/testing/scripted-model';
import { TEST_REVIEWER, useHarness, waitForPending } from '../support/harness';
import { recordedEffects } from '../support/test-tools';

const harness = useHarness();
const thought = 'The user asked to remove this record, so the delete tool is the right action.';
const deleteCall = (id: string): ScriptedTurn => ({ thought, toolCalls: [{ name: 'delete_record', args: { id } }] });

async function startDelete(id = 'r1') {
  return harness.start([deleteCall(id), { answer: 'done' }]);
}

describe('confirmation decisions', () => {
  it('approve: the pending call is described, shows in status and search attributes, then runs exactly once', async () => {
    const run = await startDelete('r1');
    const pending = await waitForPending(harness, run.workflowId);
    const call = pending.approvals[0];
    expect(call).toMatchObject({
      callId: 'c1-1',
      tool: 'delete_record',
      args: { id: 'r1' },
      question: 'Run delete_record({"id":"r1"})?',
    });
    expect(call?.argsHash).toMatch(/^[0-9a-f]{16}$/);
    expect(Date.parse(call?.deadline ?? '') - Date.parse(call?.requestedAt ?? '')).toBe(24 * 3600 * 1000);
    expect((await run.getStatus()).state).toBe('awaiting_approval');
    const attributes = (await harness.client.workflow.getHandle(run.workflowId).describe()).typedSearchAttributes;
    expect(attributes.get(AgentStatusKey)).toBe('AwaitingApproval');
    expect(attributes.get(AgentPendingToolsKey)).toEqual(['delete_record']);
    expect(recordedEffects.get(`${run.firstRunId}:c1-1`)).toBeUndefined(); // nothing ran before the decision

    const applied = await harness.agents.handle(run.workflowId).approve(undefined, { argsHash: call?.argsHash });
    expect(applied).toEqual({
      callId: 'c1-1',
      tool: 'delete_record',
      decision: 'approve',
      always: false,
      args: { id: 'r1' },
      by: { identity: TEST_REVIEWER, channel: 'client' },
    });
    const result = await run.result();
    // The trace says who let the call run.
    expect(result.trace.steps[0]).toMatchObject({
      decision: { kind: 'approve', by: { identity: TEST_REVIEWER, channel: 'client' } },
      observation: 'deleted r1',
    });
    expect(recordedEffects.get(`${run.firstRunId}:c1-1`)).toBe(1);
    const final = (await harness.client.workflow.getHandle(run.workflowId).describe()).typedSearchAttributes;
    expect(final.get(AgentStatusKey)).toBe('Completed');
    expect(final.get(AgentPendingToolsKey)).toBeUndefined();
  });

  it('reject: the tool does not run and the model sees the reason', async () => {
    const run = await startDelete('r2');
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).reject('c1-1', 'that record is still referenced by invoices');
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ decision: { kind: 'reject' }, isError: true });
    expect(result.trace.steps[0]?.observation).toContain('that record is still referenced by invoices');
    expect(recordedEffects.has(`${run.firstRunId}:c1-1`)).toBe(false);
    const seen = harness.model.requests(run.modelName)[1]?.messages.find((message) => message.role === 'tool');
    expect(String(seen?.content)).toContain('still referenced by invoices');
  });

  it("run's prompt: yes approves, and free text rejects with the words the model then reads", async () => {
    const said: string[] = [];
    const decideWith = async (id: string, typed: string[]) => {
      const run = await startDelete(id);
      await waitForPending(harness, run.workflowId);
      const [item] = await harness.agents.handle(run.workflowId).listPending();
      // What a person types at `run`'s prompt, line by line.
      const terminal = {
        question: async (prompt: string) => {
          const line = typed.shift();
          if (line === undefined) throw new Error(`the prompt asked again: ${prompt} (it said: ${said.join(' | ')})`);
          return line;
        },
      };
      const decisions = createRunDecisions(
        harness.agents,
        run.workflowId,
        true,
        (line) => said.push(line),
        undefined,
        terminal,
      );
      await decisions.handle(item!);
      return { run, result: await run.result() };
    };
    const approved = await decideWith('r20', ['YES']);
    expect(approved.result.trace.steps[0]).toMatchObject({ decision: { kind: 'approve' }, isError: false });
    const rejected = await decideWith('r21', ['No, archive it instead of deleting']);
    expect(rejected.result.trace.steps[0]).toMatchObject({ decision: { kind: 'reject' }, isError: true });
    const seen = harness.model.requests(rejected.run.modelName)[1]?.messages.find((message) => message.role === 'tool');
    expect(String(seen?.content)).toContain('No, archive it instead of deleting');
  });

  it('a rejected call gives its limits.maxCallsPerTool slot back: the next call waits for approval and runs', async () => {
    const run = await harness.start([deleteCall('r6'), deleteCall('r7'), { answer: 'deleted r7 instead' }], 'q', {
      limits: { maxCallsPerTool: { delete_record: 1 } },
    });
    await waitForPending(harness, run.workflowId, { callId: 'c1-1' });
    await harness.agents.handle(run.workflowId).reject('c1-1', 'keep r6');
    await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    await harness.agents.handle(run.workflowId).approve('c2-1');
    const result = await run.result();
    expect(result.trace.steps.slice(0, 2).map((step) => [step.decision?.kind, step.observation])).toEqual([
      ['reject', expect.stringContaining('keep r6')],
      ['approve', 'deleted r7'],
    ]);
    expect(result.trace.toolRuns).toEqual({ delete_record: 1 });
  });

  it('edit: an invalid edit is refused to the sender and the call stays pending; a valid one runs with the new args', async () => {
    const run = await startDelete('r3');
    await waitForPending(harness, run.workflowId);
    const invalid = harness.agents.handle(run.workflowId).edit('c1-1', { id: '' });
    await expect(invalid).rejects.toBeInstanceOf(DecisionRefusedError);
    await expect(invalid).rejects.toThrow(
      /Edit refused, call c1-1 is still pending: invalid arguments for delete_record: id: /,
    );
    await expect(invalid).rejects.toMatchObject({ reason: 'invalid_edit' }); // what the CLI branches on to ask again
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals.map((call) => call.callId)).toEqual([
      'c1-1',
    ]);

    const applied = await harness.agents.handle(run.workflowId).edit('c1-1', { id: 'r3-archived' });
    expect(applied.args).toEqual({ id: 'r3-archived' });
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ decision: { kind: 'edit' }, observation: 'deleted r3-archived' });
    expect(result.trace.steps[0]?.action).toMatchObject({ args: { id: 'r3-archived' } });
  });

  it('respond: the tool does not run and the given text is the observation', async () => {
    const run = await startDelete('r4');
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).respond('c1-1', 'Record r4 was already deleted yesterday.');
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({
      decision: { kind: 'respond' },
      isError: false,
      observation: 'Record r4 was already deleted yesterday.',
    });
    expect(recordedEffects.has(`${run.firstRunId}:c1-1`)).toBe(false);
  });

  it('unknown, stale and mismatched decisions are refused by the update validator, leaving no trace in history', async () => {
    const run = await startDelete('r5');
    await waitForPending(harness, run.workflowId);
    await expect(harness.agents.handle(run.workflowId).approve('c9-9')).rejects.toThrow(
      'No pending call c9-9 (pending: c1-1)',
    );
    await expect(harness.agents.handle(run.workflowId).approve('c9-9')).rejects.toMatchObject({
      reason: 'not_pending',
    });
    const stale = harness.agents.handle(run.workflowId).approve('c1-1', { argsHash: '0000000000000000' });
    await expect(stale).rejects.toThrow(/argsHash 0000000000000000 does not match call c1-1/);
    await expect(stale).rejects.toMatchObject({ reason: 'stale_args' });
    await expect(
      harness.agents.handle(run.workflowId).decide('c1-1', { decision: 'reject', reason: ' ' }),
    ).rejects.toMatchObject({ reason: 'invalid_payload' });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await run.result();
    await expect(harness.agents.handle(run.workflowId).approve('c1-1')).rejects.toThrow();
    const events = (await harness.client.workflow.getHandle(run.workflowId).fetchHistory()).events ?? [];
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1);
    expect(events.some((event) => event.workflowTaskFailedEventAttributes)).toBe(false);
  });

  it('a stale decision is refused while a newer call is pending', async () => {
    const run = await harness.start([deleteCall('r6'), deleteCall('r7'), { answer: 'done' }]);
    await waitForPending(harness, run.workflowId);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const second = await waitForPending(harness, run.workflowId, { callId: 'c2-1' });
    expect(second.approvals[0]?.args).toEqual({ id: 'r7' });
    await expect(harness.agents.handle(run.workflowId).approve('c1-1')).rejects.toThrow(
      'Call c1-1 was already decided',
    );
    await expect(harness.agents.handle(run.workflowId).approve('c1-1')).rejects.toMatchObject({
      reason: 'already_decided',
    });
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals.map((call) => call.callId)).toEqual([
      'c2-1',
    ]);
    await harness.agents.handle(run.workflowId).reject('c2-1', 'one is enough');
    expect((await run.result()).trace.steps.map((step) => step.decision?.kind)).toEqual([
      'approve',
      'reject',
      undefined,
    ]);
  });

  it('an invalid signal is recorded in the error history and changes nothing', async () => {
    const run = await startDelete('r8');
    await waitForPending(harness, run.workflowId);
    const handle = harness.client.workflow.getHandle(run.workflowId);
    await handle.signal(decideSignal, { callId: 'c1-1', decision: 'explode' } as never);
    await handle.signal(decideSignal, { callId: 'c7-7', decision: 'approve' });
    const trace = await run.getTrace();
    expect(
      trace.errorHistory.filter((entry) => entry.kind === 'invalid_decision').map((entry) => entry.message),
    ).toEqual([expect.stringMatching(/^Invalid decision: decision: /), 'No pending call c7-7 (pending: c1-1)']);
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals).toHaveLength(1);
    await handle.signal(decideSignal, { callId: 'c1-1', decision: 'approve' });
    expect((await run.result()).trace.steps[0]?.observation).toBe('deleted r8');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.some((event) => event.workflowTaskFailedEventAttributes)).toBe(false);
  });

  it('huge invalid signals leave a bounded trace: the run completes with its answer', async () => {
    const run = await startDelete('huge');
    await waitForPending(harness, run.workflowId);
    const handle = harness.client.workflow.getHandle(run.workflowId);
    // About 900 KB each, and every key unknown: the refusal used to list them all, three times over, in the result.
    const junk = Object.fromEntries(
      Array.from({ length: 40_000 }, (_, index) => [`field_${index}_${'x'.repeat(8)}`, 1]),
    );
    for (let index = 0; index < 3; index++)
      await handle.signal(decideSignal, { callId: 'c1-1', decision: 'approve', ...junk } as never);
    await handle.signal(decideSignal, { callId: 'c1-1', decision: 'approve' });
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toBe('deleted huge');
    const refusals = result.trace.errorHistory.filter((entry) => entry.kind === 'invalid_decision');
    expect(refusals).toHaveLength(3);
    for (const refusal of refusals) {
      expect(refusal.message).toMatch(/^Invalid decision: unknown fields: field_0_x+, .* and 39990 more$/);
    }
    expect(JSON.stringify(result).length).toBeLessThan(20_000);
  });

  it('a barrage of malformed decisions by update and by signal is refused or recorded, never a failed workflow task', async () => {
    const run = await startDelete('fuzz');
    await waitForPending(harness, run.workflowId);
    const handle = harness.client.workflow.getHandle(run.workflowId);
    const crafted: unknown[] = [
      null,
      42,
      'approve',
      [],
      {},
      { callId: 'c1-1' },
      { decision: 'approve' },
      { callId: 1, decision: 'approve' },
      { callId: 'c1-1', decision: 'edit', args: 'x' },
      { callId: 'c1-1', decision: 'reject', reason: '' },
      { callId: 'c1-1', decision: 'respond' },
      { callId: 'c1-1', decision: 'approve', always: 'yes' },
      { callId: 'c1-1', decision: 'approve', argsHash: 'nope' },
      { callId: '../c1-1', decision: 'approve' },
    ];
    const payloads = [...crafted, ...fc.sample(fc.jsonValue(), { numRuns: 20, seed: 7 })];
    for (const payload of payloads) {
      await expect(handle.executeUpdate(decideUpdate, { args: [payload as never] })).rejects.toThrow();
      await handle.signal(decideSignal, payload as never);
    }
    const trace = await run.getTrace();
    expect(trace.errorHistory.filter((entry) => entry.kind === 'invalid_decision')).toHaveLength(payloads.length);
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals).toHaveLength(1); // nothing changed
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).trace.steps[0]?.observation).toBe('deleted fuzz');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.some((event) => event.workflowTaskFailedEventAttributes)).toBe(false);
    expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toHaveLength(1); // only the real approval
  });
});
