/**
 * What the decision-verifying codec costs per payload (`npx tsx bench/decision-verifier.ts`). The worker runs it on
 * every payload of every workflow activation, so the common case (no decision) must stay a byte scan. Prints a table;
 * asserts nothing.
 */
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { performance } from 'node:perf_hooks';
import { createDecisionSigner, parseApprovalKeys, signDecision } from '../src/common/decision-signing';
import { DecisionVerifierCodec } from '../src/worker/codec/decision-verifier';
import { generateKeyPairSync } from 'node:crypto';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const pem = (key: typeof privateKey, type: 'pkcs8' | 'spki') => key.export({ type, format: 'pem' }).toString();
const keys = parseApprovalKeys({ keys: [{ id: 'a', approver: 'alice', publicKey: pem(publicKey, 'spki') }] });
const signer = createDecisionSigner('a', pem(privateKey, 'pkcs8'));
const codec = new DecisionVerifierCodec(keys);
const context = { type: 'workflow', namespace: 'default', workflowId: 'w' } as const;
const decision = { callId: 'c1-1', decision: 'approve', argsHash: '0123456789abcdef', identity: 'alice' };

const cases: [string, Payload][] = [
  ['run input (2 KB JSON)', defaultPayloadConverter.toPayload({ query: 'q'.repeat(2000), config: { a: 1 } })],
  ['model reply text (64 KB)', defaultPayloadConverter.toPayload({ text: 'word '.repeat(13_000) })],
  ['unsigned decision', defaultPayloadConverter.toPayload(decision)],
  [
    'signed decision (Ed25519)',
    defaultPayloadConverter.toPayload(signDecision(decision, signer, { workflowId: 'w', firstRunId: 'r' })),
  ],
];

async function measure() {
  const rows = [];
  for (const [name, payload] of cases) {
    const rounds = name.startsWith('signed') ? 2_000 : 20_000;
    for (let warm = 0; warm < 200; warm++) await codec.decode([payload], context);
    const started = performance.now();
    for (let round = 0; round < rounds; round++) await codec.decode([payload], context);
    const perCall = ((performance.now() - started) * 1000) / rounds;
    rows.push({ payload: name, bytes: payload.data?.length ?? 0, 'µs per decode': perCall.toFixed(2) });
  }
  console.table(rows);
}

void measure();
