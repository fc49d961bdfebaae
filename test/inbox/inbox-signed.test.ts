import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../src/inbox';
import { useHarness, waitForPending } from '../support/harness';
import { testSigningKeys } from '../support/signing-keys';
import { eventsOfType } from '../support/run-events';
import { ALICE_TOKEN, call, PEOPLE } from './support';

const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const keys = testSigningKeys();
const harness = useHarness({
  approvalKeys: keys.approvalKeys,
  mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], elicitation: true } },
});
let signing: Inbox;
let plain: Inbox;

beforeAll(async () => {
  signing = await startInbox({ client: harness.client, identities: { tokens: PEOPLE }, signer: keys.signers.inbox });
  plain = await startInbox({ client: harness.client, identities: { tokens: PEOPLE } });
});
afterAll(async () => {
  await signing.close();
  await plain.close();
});

const thought = 'The user asked for this record to go, so I delete it.';

describe('the inbox signs decisions (approvals.requireSigned)', () => {
  it('an inbox without a key is refused with the reason; one with a key decides as the signed-in person', async () => {
    const run = await harness.start(
      [{ thought, toolCalls: [{ name: 'delete_record', args: { id: 'i1' } }] }, { answer: 'deleted i1' }],
      'q',
      { approvals: { requireSigned: ['delete_record'] } },
    );
    await waitForPending(harness, run.workflowId);
    const path = `/runs/${run.workflowId}/decide`;
    const body = { callId: 'c1-1', decision: 'approve' };

    const refused = await call(plain.url, path, { token: ALICE_TOKEN, body });
    expect(refused.status).toBe(422);
    expect(refused.json()).toEqual({
      status: 'refused',
      reason: 'unsigned',
      message: 'Unsigned decision refused: call c1-1 (delete_record) needs a signed decision',
    });
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals).toHaveLength(1);

    const applied = await call(signing.url, path, { token: ALICE_TOKEN, body });
    expect(applied.json()).toMatchObject({ status: 'applied' });
    const result = await run.result();
    expect(result.trace.steps[0]?.decision).toEqual({
      kind: 'approve',
      by: { identity: 'alice', channel: 'inbox', roles: ['finance'], signedWith: 'inbox-1' },
    });
    const [entry] = await harness.agents.handle(run.workflowId).audit({ verify: keys.approvalKeys });
    expect(entry?.verification).toEqual({ signed: true, valid: true, keyId: 'inbox-1', approver: 'alice' });
  });

  it("signs the answer to a signed tool's MCP form: refused from an inbox without a key, taken from one with", async () => {
    const tool = 'everything__trigger-elicitation-request';
    const run = await harness.start(
      [{ thought: 'The server has a form for this.', toolCalls: [{ name: tool, args: {} }] }, { answer: 'Filled.' }],
      'Fill in the form.',
      { approvals: { requireSigned: [tool] } },
    );
    const { question } = await waitForPending(harness, run.workflowId, { approvals: 0, question: true });
    const path = `/runs/${run.workflowId}/answer`;
    const body = { answer: JSON.stringify({ name: 'Alice Liddell' }), callId: question?.callId };

    const refused = await call(plain.url, path, { token: ALICE_TOKEN, body });
    expect(refused.status).toBe(422);
    expect(refused.json()).toMatchObject({ status: 'refused', reason: 'unsigned' });
    expect((await harness.agents.handle(run.workflowId).getPending()).question?.callId).toBe(question?.callId);

    const applied = await call(signing.url, path, { token: ALICE_TOKEN, body });
    expect(applied.json()).toMatchObject({ status: 'applied' });
    const result = await run.result();
    expect(result.trace.steps[0]?.observation).toContain('- Name: Alice Liddell');
    const answered = await eventsOfType(run, 'clarification_answered');
    expect(answered[0]?.by).toMatchObject({ identity: 'alice', channel: 'inbox', signedWith: 'inbox-1' });
  });
});
