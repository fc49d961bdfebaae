import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditTrail } from '../../src/client/audit';
import { startInbox, type Inbox } from '../../src/inbox';
import { encryptedDataConverter } from '../../src/common/data-converter';
import { useHarness, waitForPending } from '../support/harness';
import { ALICE_TOKEN, call, PEOPLE } from './support';

// Worker and client share the encryption key, as PAYLOAD_ENCRYPTION_KEYS gives it to the worker and the inbox. Tests
// run from sources; the client requires the compiled failure converter (npm test builds dist/ first).
const failureConverter = path.resolve(__dirname, '../../dist/workflow/encoded-failure-converter.js');
const harness = useHarness({
  dataConverter: encryptedDataConverter([{ id: 'k1', key: randomBytes(32) }], failureConverter),
});
let inbox: Inbox;

beforeAll(async () => {
  inbox = await startInbox({ client: harness.client, identities: { tokens: PEOPLE }, pollMs: 200 });
});
afterAll(async () => {
  await inbox.close();
});

describe('the inbox with payload encryption on', () => {
  it('shows the decrypted arguments, decides, and the audit reads the encrypted history', async () => {
    const run = await harness.start([
      {
        thought: 'The user asked for the record to go, so I delete it.',
        toolCalls: [{ name: 'delete_record', args: { id: 'secret-7' } }],
      },
      { answer: 'gone' },
    ]);
    await waitForPending(harness, run.workflowId);
    const page = await call(inbox.url, `/runs/${run.workflowId}`, { token: ALICE_TOKEN, accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(page.text).toContain('&quot;secret-7&quot;');
    const decided = await call(inbox.url, `/runs/${run.workflowId}/decide`, {
      token: ALICE_TOKEN,
      body: { callId: 'c1-1', decision: 'approve' },
    });
    expect(decided.json()).toMatchObject({ status: 'applied' });
    expect((await run.result()).finalAnswer).toBe('gone');
    // The server only ever saw ciphertext; the audit decrypts it with the client's codec.
    const { events } = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    // Payload bytes as text (the history holds them base64-encoded): a plain history would show `"secret-7"` here.
    const history = JSON.stringify(events, (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('latin1') : value,
    );
    expect(history).toContain('AwaitingApproval'); // search attributes are not encrypted: decoding works
    expect(history).not.toContain('secret-7');
    expect(await auditTrail(harness.client, run.workflowId)).toMatchObject([
      { identity: 'alice', channel: 'inbox', payload: { callId: 'c1-1' }, result: { args: { id: 'secret-7' } } },
    ]);
  });
});
