import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../src/inbox';
import { useHarness, waitForPending } from '../support/harness';
import { testSigningKeys } from '../support/signing-keys';
import { ALICE_TOKEN, call, PEOPLE } from './support';

const keys = testSigningKeys();
const harness = useHarness({ approvalKeys: keys.approvalKeys });
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
});
