import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { signDecision } from '../../src/common/decision-signing';
import { answerSignal, answerUpdate } from '../../src/shared/messages';
import { refusal } from '../support/refusal';
import { eventsOfType } from '../support/run-events';
import { useHarness, waitForPending } from '../support/harness';
import { testSigningKeys } from '../support/signing-keys';

/*
 * Signed answers: an MCP server's form asked during a call of a tool in `approvals.requireSigned` takes a signed
 * answer (or a decline), on the same path and with the same checks as a signed decision.
 */
const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const keys = testSigningKeys();
const harness = useHarness({
  approvalKeys: keys.approvalKeys,
  mcpServers: {
    everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], elicitation: true, sampling: 'ask' },
  },
});
const tool = 'everything__trigger-elicitation-request';
const thought = 'The MCP server has a form for exactly this, so I call it.';

describe("signed answers to an MCP server's form (approvals.requireSigned)", () => {
  it('takes only an answer signed by the approver for this question; a decline needs no signature', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: tool, args: {} }] }, { answer: 'Filled.' }],
      'Form.',
      {
        approvals: { requireSigned: [tool] },
      },
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    const callId = question?.callId ?? '';
    const content = JSON.stringify({ name: 'Alice Liddell' });
    const handle = harness.client.workflow.getHandle(run.workflowId);

    const unsigned = new AgentClient({ client: harness.client, identity: 'alice' });
    expect(await refusal(unsigned.handle(run.workflowId).answer(content, callId))).toEqual({
      reason: 'unsigned',
      message: `Unsigned answer refused: question ${callId} (of a call of ${tool}) needs a signed answer`,
    });
    // Mallory's key is none the worker trusts; a signature for another question does not carry over.
    const mallory = new AgentClient({ client: harness.client, identity: 'alice', signer: keys.signers.mallory });
    expect(await refusal(mallory.handle(run.workflowId).answer(content, callId))).toMatchObject({
      reason: 'invalid_signature',
    });
    const { raw } = await handle.describe();
    const target = { workflowId: run.workflowId, firstRunId: raw.workflowExecutionInfo?.firstRunId ?? '' };
    const elsewhere = signDecision(
      { answer: content, callId: 'c9-9.00000000', identity: 'alice' },
      keys.signers.alice,
      target,
    );
    await expect(handle.executeUpdate(answerUpdate, { args: [{ ...elsewhere, callId }] })).rejects.toMatchObject({
      cause: { message: 'Signature refused: the signature does not match key alice-1' },
    });
    // A signal cannot be verified before it enters history: refused, and nothing changes.
    const signed = signDecision({ answer: content, callId, identity: 'alice' }, keys.signers.alice, target);
    await handle.signal(answerSignal, signed);
    expect((await waitForPending(harness, run.workflowId, { question: true })).question?.callId).toBe(callId);

    const alice = new AgentClient({ client: harness.client, identity: 'alice', signer: keys.signers.alice });
    // A signature names the question the person read: never whatever happens to be pending when it is sent.
    expect(await refusal(alice.handle(run.workflowId).answer(content))).toEqual({
      reason: 'invalid_payload',
      message: 'a signed answer names its question: give its callId (see `pending`)',
    });
    await alice.handle(run.workflowId).answer(content, callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('- Name: Alice Liddell');
    // The signal was refused, and the refusal recorded.
    expect(result.trace.errorHistory.map((error) => error.message)).toContain(
      'Signal refused: a signed answer is sent as an update',
    );
    const answered = await eventsOfType(run, 'clarification_answered');
    expect(answered[0]?.by).toMatchObject({ identity: 'alice', signedWith: 'alice-1' });

    // Declining keeps the call from going on: anyone may, unsigned.
    const again = await harness.start(
      [{ thought, toolCalls: [{ name: tool, args: {} }] }, { answer: 'No.' }],
      'Form.',
      {
        approvals: { requireSigned: [tool] },
      },
    );
    const asked = await waitForPending(harness, again.workflowId, { question: true });
    await unsigned.handle(again.workflowId).answer('decline', asked.question?.callId);
    expect((await again.result()).trace.steps[0]?.observation).toContain('User declined');
  });

  it("a sampling request asked first (sampling: 'ask') of a tool that needs signatures takes a signed accept", async () => {
    const sampling = 'everything__trigger-sampling-request';
    const run = await harness.start(
      [
        { thought, toolCalls: [{ name: sampling, args: { prompt: 'a word', maxTokens: 5 } }] },
        { answer: 'Signed.' }, // the run's model, for the server
        { answer: 'Sampled.' },
      ],
      'Sample.',
      { approvals: { requireSigned: [sampling] } },
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    expect(question?.tool).toBe(sampling);
    const callId = question?.callId ?? '';
    const unsigned = new AgentClient({ client: harness.client, identity: 'alice' });
    expect(await refusal(unsigned.handle(run.workflowId).answer('accept', callId))).toMatchObject({
      reason: 'unsigned',
    });
    const alice = new AgentClient({ client: harness.client, identity: 'alice', signer: keys.signers.alice });
    await alice.handle(run.workflowId).answer('accept', callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('Signed.');
  });
});
