import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentClient } from '../../src/client/agent-client';
import { DecisionRefusedError } from '../../src/client/decisions';
import { encryptedDataConverter } from '../../src/common/data-converter';
import { useHarness, waitForPending } from '../support/harness';
import { testSigningKeys } from '../support/signing-keys';

// The client requires the compiled failure converter, as in the inbox's encryption test (npm test builds dist/ first).
const failureConverter = path.resolve(__dirname, '../../dist/workflow/encoded-failure-converter.js');
const keys = testSigningKeys();
const harness = useHarness({
  dataConverter: encryptedDataConverter([{ id: 'k1', key: randomBytes(32) }], failureConverter),
  approvalKeys: keys.approvalKeys,
});

describe('signed approvals with payload encryption on', () => {
  it('the worker verifies the decrypted decision; the audit re-verifies the encrypted history', async () => {
    const run = await harness.start(
      [
        { thought: 'The user asked for the record to go.', toolCalls: [{ name: 'delete_record', args: { id: 'e1' } }] },
        { answer: 'gone' },
      ],
      'q',
      { approvals: { requireSigned: true } },
    );
    await waitForPending(harness, run.workflowId);
    const mallory = new AgentClient({ client: harness.client, identity: 'alice', signer: keys.signers.mallory });
    await expect(mallory.handle(run.workflowId).approve('c1-1')).rejects.toThrow(
      new DecisionRefusedError('Signature refused: key mallory-1 is not one this worker trusts', 'invalid_signature'),
    );
    const alice = new AgentClient({ client: harness.client, identity: 'alice', signer: keys.signers.alice });
    expect(await alice.handle(run.workflowId).approve('c1-1')).toMatchObject({ by: { signedWith: 'alice-1' } });
    await run.result();
    const [entry] = await harness.agents.handle(run.workflowId).audit({ verify: keys.approvalKeys });
    expect(entry?.verification).toEqual({ signed: true, valid: true, keyId: 'alice-1', approver: 'alice' });
  });
});
