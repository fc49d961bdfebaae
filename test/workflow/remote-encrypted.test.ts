import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { RawValue, type Payload, type PayloadCodec } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { encryptedDataConverter } from '../../src/common/data-converter';
import { EncryptionCodec } from '../../src/common/encryption-codec';
import type { RemoteToolConfig } from '../../src/worker/tools/remote-tools';
import { useHarness } from '../support/harness';

/*
 * Issue 45, B4: on an encrypted agent worker, a remote worker's result that claims encryption but can never be
 * decrypted (no key ID, a corrupt ciphertext under a key the agent holds) failed every workflow task of the run: the
 * codec threw before any workflow code ran. Now it is an error observation, like any result the agent cannot read.
 */

const keys = [{ id: 'k1', key: randomBytes(32) }];
// The client requires the compiled failure converter, as in the other encryption tests (npm test builds dist/ first).
const failureConverter = path.resolve(__dirname, '../../dist/workflow/encoded-failure-converter.js');
const queue = `remote-encrypted-${randomUUID()}`;

const remoteTools: RemoteToolConfig[] = [
  {
    name: 'sealed',
    description: 'Answers with a sealed payload of the kind it is asked for.',
    parameters: { type: 'object', properties: { kind: { enum: ['no key id', 'corrupt'] } }, required: ['kind'] },
    taskQueue: queue,
    activityType: 'Sealed',
    readOnly: true,
  },
];

const harness = useHarness({ dataConverter: encryptedDataConverter(keys, failureConverter), remoteTools });

/** The remote worker reads its encrypted input, and sends its result as it built it, unencrypted by any codec. */
const readOnly: PayloadCodec = {
  encode: async (payloads: Payload[]) => payloads,
  decode: (payloads: Payload[]) => new EncryptionCodec(keys).decode(payloads),
};

let connection: NativeConnection | undefined;
let worker: Worker | undefined;
let running: Promise<void> | undefined;

beforeAll(async () => {
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
  worker = await Worker.create({
    connection,
    namespace: inject('temporalNamespace'),
    taskQueue: queue,
    dataConverter: { payloadCodecs: [readOnly] },
    activities: {
      Sealed: ({ args }: { args: { kind: string } }) =>
        RawValue.fromPayload({
          metadata: {
            encoding: new TextEncoder().encode('binary/encrypted'),
            ...(args.kind === 'corrupt' ? { 'encryption-key-id': new TextEncoder().encode('k1') } : {}),
          },
          data: randomBytes(64),
        }),
    },
  });
  running = worker.run();
});

afterAll(async () => {
  worker?.shutdown();
  await running;
  await connection?.close();
});

describe('remote tools on an encrypted worker', () => {
  it.each(['no key id', 'corrupt'])(
    'a sealed result (%s) is an error observation, and the run goes on',
    async (kind) => {
      const run = await harness.start([
        { thought: 'The sealed tool has the answer.', toolCalls: [{ name: 'sealed', args: { kind } }] },
        { answer: 'The sealed tool answered with something nobody can open.' },
      ]);
      const result = await run.result();
      expect(result.finalAnswer).toBe('The sealed tool answered with something nobody can open.');
      expect(result.trace.steps[0]?.isError).toBe(true);
      expect(result.trace.steps[0]?.observation).toMatch(/could not be read: Unknown encoding: binary\/undecryptable/);
      const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
      expect(history.events?.filter((event) => event.workflowTaskFailedEventAttributes)).toEqual([]);
    },
  );
});
