import { describe, expect, it } from 'vitest';
import { auditTrail } from '../../src/client/audit';
import { firstRunIdOf, recordedEffects } from '../support/test-tools';
import { useHarness } from '../support/harness';
import { runGoProgram, useGoPrograms } from '../support/polyglot';

// A service written in Go drives a run with Temporal's Go SDK and the published contract alone (workflow type, input,
// the getPending query, the decide update, the result): polyglot/go/cmd/agent-client, built from the Go module proxy.

const harness = useHarness();
const programs = useGoPrograms();
const CLIENT_IDENTITY = 'go-agent-client@polyglot-test';

describe('a Go client drives a run through the wire contract', () => {
  it('starts a run, sees the call waiting, approves it as a named person and reads the answer', async () => {
    const modelName = `scenario-go-client-${Date.now()}`;
    harness.model.script(modelName, [
      {
        thought: 'The user wants record a1 gone; deleting needs approval.',
        toolCalls: [{ name: 'delete_record', args: { id: 'a1' } }],
      },
      { answer: 'Record a1 is deleted.' },
    ]);
    // The grouped config as people write it: the Go client passes it through as JSON.
    const config = { model: modelName, approvals: { approvers: { delete_record: ['go-reviewer'] } } };
    const workflowId = `go-client-${Date.now()}`;

    const run = await runGoProgram(programs().agentClient, [
      '-task-queue',
      harness.agents.taskQueue,
      '-workflow-id',
      workflowId,
      '-query',
      'Delete record a1.',
      '-config',
      JSON.stringify(config),
      '-identity',
      'go-reviewer',
      '-client-identity',
      CLIENT_IDENTITY,
      // Within the test's own limit: a run that never ends fails with the Go client's account of what it waited for.
      '-timeout',
      '40s',
    ]);
    expect(run.stderr).toContain('approved c1-1 (delete_record)');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      workflowId: string;
      approved: unknown[];
      result: { success: boolean; finalAnswer: string; terminationReason: string; trace: { steps: unknown[] } };
    };

    expect(out.approved).toEqual([
      {
        callId: 'c1-1',
        tool: 'delete_record',
        decision: 'approve',
        args: { id: 'a1' },
        by: { identity: 'go-reviewer', channel: 'client' },
      },
    ]);
    expect(out.result).toMatchObject({
      success: true,
      finalAnswer: 'Record a1 is deleted.',
      terminationReason: 'success',
      workflowId,
    });
    expect(out.result.trace.steps[0]).toMatchObject({
      action: { type: 'tool_call', tool: 'delete_record', args: { id: 'a1' }, callId: 'c1-1' },
      observation: 'deleted a1',
      decision: { kind: 'approve', by: { identity: 'go-reviewer', channel: 'client' } },
    });
    // The tool ran once, after the Go client's approval.
    expect(recordedEffects.get(`${await firstRunIdOf(harness.client, workflowId)}:c1-1`)).toBe(1);

    // The audit, read from history by the TypeScript client, names the person and the Go client that carried it.
    const trail = await auditTrail(harness.client, workflowId);
    expect(trail).toHaveLength(1);
    expect(trail[0]).toMatchObject({
      message: 'decide',
      via: 'update',
      identity: 'go-reviewer',
      channel: 'client',
      sender: CLIENT_IDENTITY,
      payload: { callId: 'c1-1', decision: 'approve' },
      result: { decision: 'approve', tool: 'delete_record' },
    });
  });
});
