import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import path from 'node:path';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { DurableAgentError } from '../shared/errors';

/** Metadata `encoding` of an encrypted payload. */
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Metadata key naming the key that encrypted a payload, so keys can rotate. */
export const KEY_ID_METADATA = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A named 256-bit key. */
export interface EncryptionKey {
  id: string;
  key: Buffer;
}

/** Raised for keys or payloads the codec cannot use; the message says which. */
export class PayloadCodecError extends DurableAgentError {
  override readonly name = 'PayloadCodecError';
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * AES-256-GCM payload encryption with compression first (ciphertext does not compress). The first key encrypts;
 * every key decrypts, so a new key can be put in front while old histories stay readable.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly active: EncryptionKey;
  private readonly byId: Map<string, Buffer>;

  constructor(keys: readonly EncryptionKey[]) {
    const [active] = keys;
    if (!active) throw new PayloadCodecError('The encryption codec needs at least one key');
    for (const { id, key } of keys) {
      if (key.length !== 32)
        throw new PayloadCodecError(`Encryption key "${id}" must be 32 bytes (AES-256), got ${key.length}`);
    }
    this.active = active;
    this.byId = new Map(keys.map(({ id, key }) => [id, key]));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plain = deflateRawSync(temporal.api.common.v1.Payload.encode(payload).finish());
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.active.key, iv);
      const encrypted = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: encoder.encode(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: encoder.encode(this.active.id) },
        data: encrypted,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const encoding = payload.metadata?.encoding;
      if (!encoding || decoder.decode(encoding) !== ENCRYPTED_ENCODING) return payload;
      const keyIdBytes = payload.metadata?.[KEY_ID_METADATA];
      const keyId = keyIdBytes ? decoder.decode(keyIdBytes) : '';
      if (keyId === '') return undecryptable('it names no key');
      const key = this.byId.get(keyId);
      // A key this worker lacks is an operator's fix: the task fails until the key is added, then the run goes on.
      if (!key)
        throw new PayloadCodecError(`No decryption key "${keyId}" (known: ${[...this.byId.keys()].join(', ')})`);
      const data = Buffer.from(payload.data ?? new Uint8Array());
      if (data.length < IV_BYTES + TAG_BYTES) return undecryptable('it is too short to be ciphertext');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, IV_BYTES));
        decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
          decipher.final(),
        ]);
        return temporal.api.common.v1.Payload.decode(inflateRawSync(plain));
      } catch (error) {
        return undecryptable(`under key "${keyId}": ${(error as Error).message}`);
      }
    });
  }
}

/** Metadata `encoding` of a payload the codec could not decrypt and no key ever will: no converter reads it. */
export const UNDECRYPTABLE_ENCODING = 'binary/undecryptable';

/**
 * What an encrypted payload that can never be read decodes to: one naming why, which every reader refuses in its own
 * way (a remote tool's result becomes an error observation). Thrown instead, as a payload with a missing key is, it
 * failed the whole workflow task, every time, however the run's code would have handled it.
 */
function undecryptable(why: string): Payload {
  return {
    metadata: { encoding: encoder.encode(UNDECRYPTABLE_ENCODING) },
    data: encoder.encode(`an encrypted payload that cannot be decrypted: ${why}`),
  };
}

/**
 * Parses `PAYLOAD_ENCRYPTION_KEYS`: `id:base64key[,id:base64key…]`, the first one encrypting. Throws a one-line
 * error naming what is wrong.
 */
export function parseEncryptionKeys(text: string): EncryptionKey[] {
  const keys = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const colon = entry.indexOf(':');
      if (colon <= 0)
        throw new PayloadCodecError('PAYLOAD_ENCRYPTION_KEYS entries are id:base64key, e.g. k1:<44 base64 characters>');
      const id = entry.slice(0, colon);
      const key = Buffer.from(entry.slice(colon + 1), 'base64');
      if (key.length !== 32)
        throw new PayloadCodecError(`PAYLOAD_ENCRYPTION_KEYS key "${id}" must decode to 32 bytes, got ${key.length}`);
      return { id, key };
    });
  // Payloads name the key that encrypted them: two keys under one ID would leave some payloads undecryptable.
  const seen = new Set<string>();
  for (const { id } of keys) {
    if (seen.has(id))
      throw new PayloadCodecError(`PAYLOAD_ENCRYPTION_KEYS names key "${id}" twice; key IDs must be unique`);
    seen.add(id);
  }
  return keys;
}

/**
 * The data converter for client and worker: encrypted payloads, and failure messages encoded too. The failure
 * converter is loaded by path (the client `require`s it, the worker bundles it); pass the compiled module's path when
 * running from TypeScript sources.
 */
export function encryptedDataConverter(
  keys: readonly EncryptionKey[],
  failureConverterPath: string = path.join(__dirname, '..', 'workflow', 'encoded-failure-converter'),
): DataConverter {
  return { payloadCodecs: [new EncryptionCodec(keys)], failureConverterPath };
}
