import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import {
  EncryptionCodec,
  encryptedDataConverter,
  parseEncryptionKeys,
  PayloadCodecError,
} from '../../src/common/data-converter';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('EncryptionCodec', () => {
  it('round-trips payloads, hides the plaintext and names the key', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const payload = defaultPayloadConverter.toPayload({ secret: 'canary-plaintext', n: 1 });
    const [encrypted] = await codec.encode([payload]);
    expect(Buffer.from(encrypted?.data ?? []).toString('latin1')).not.toContain('canary-plaintext');
    expect(new TextDecoder().decode(encrypted?.metadata?.['encryption-key-id'])).toBe('k1');
    const [decrypted] = await codec.decode([encrypted!]);
    expect(defaultPayloadConverter.fromPayload(decrypted!)).toEqual({ secret: 'canary-plaintext', n: 1 });
  });

  it('compresses before encrypting', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const payload = defaultPayloadConverter.toPayload('abc '.repeat(5000));
    const [encrypted] = await codec.encode([payload]);
    expect(encrypted?.data?.length).toBeLessThan((payload.data?.length ?? 0) / 10);
  });

  it('rotates keys: a new first key encrypts, old keys still decrypt old payloads', async () => {
    const old = key('2025');
    const [before] = await new EncryptionCodec([old]).encode([defaultPayloadConverter.toPayload('old run')]);
    const rotated = new EncryptionCodec([key('2026'), old]);
    expect(defaultPayloadConverter.fromPayload((await rotated.decode([before!]))[0]!)).toBe('old run');
    const [after] = await rotated.encode([defaultPayloadConverter.toPayload('new run')]);
    expect(new TextDecoder().decode(after?.metadata?.['encryption-key-id'])).toBe('2026');
    await expect(new EncryptionCodec([old]).decode([after!])).rejects.toThrow('No decryption key "2026" (known: 2025)');
  });

  it('decodes ciphertext no key can ever read to a payload nobody reads, and passes unencrypted ones through', async () => {
    const codec = new EncryptionCodec([key('k1')]);
    const [encrypted] = await codec.encode([defaultPayloadConverter.toPayload('x')]);
    const data = Buffer.from(encrypted!.data!);
    data[20] = (data[20] ?? 0) ^ 0xff;
    const noKeyId = { ...encrypted!, metadata: { encoding: encrypted!.metadata!.encoding! } };
    const short = { ...encrypted!, data: new Uint8Array(3) };
    const decoded = await codec.decode([{ ...encrypted!, data }, noKeyId, short]);
    // Not thrown: a throw fails the whole workflow task, every time, wherever the payload sits (issue 45, B4).
    expect(decoded.map((payload) => new TextDecoder().decode(payload.metadata?.encoding))).toEqual([
      'binary/undecryptable',
      'binary/undecryptable',
      'binary/undecryptable',
    ]);
    expect(() => defaultPayloadConverter.fromPayload(decoded[0]!)).toThrow('Unknown encoding: binary/undecryptable');
    expect(new TextDecoder().decode(decoded[1]!.data)).toBe(
      'an encrypted payload that cannot be decrypted: it names no key',
    );
    const plain = defaultPayloadConverter.toPayload('plain');
    expect(await codec.decode([plain])).toEqual([plain]);
  });

  it('parses PAYLOAD_ENCRYPTION_KEYS and explains bad values in one line', () => {
    const a = randomBytes(32).toString('base64');
    const b = randomBytes(32).toString('base64');
    expect(parseEncryptionKeys(`new:${a}, old:${b}`).map(({ id }) => id)).toEqual(['new', 'old']);
    expect(() => parseEncryptionKeys('justakey')).toThrow(PayloadCodecError);
    expect(() => parseEncryptionKeys(`k1:${randomBytes(16).toString('base64')}`)).toThrow(
      'PAYLOAD_ENCRYPTION_KEYS key "k1" must decode to 32 bytes, got 16',
    );
    // Two keys under one ID would make some payloads undecryptable: refused when the process starts.
    expect(() => parseEncryptionKeys(`k1:${a},k1:${b}`)).toThrow(
      'PAYLOAD_ENCRYPTION_KEYS names key "k1" twice; key IDs must be unique',
    );
  });
});

describe('encryptedDataConverter', () => {
  it('names by default a failure converter module that exists beside it (the worker bundles it by that path)', () => {
    const { failureConverterPath } = encryptedDataConverter(
      parseEncryptionKeys(`k1:${randomBytes(32).toString('base64')}`),
    );
    expect(failureConverterPath).toMatch(/workflow[\\/]encoded-failure-converter$/);
    expect(existsSync(`${failureConverterPath!}.ts`) || existsSync(`${failureConverterPath!}.js`)).toBe(true);
  });
});
