import type { DataConverter } from '@temporalio/common';
import type { RuntimeEnv } from './env';
import { encryptedDataConverter, parseEncryptionKeys } from './encryption-codec';

/** The data converter PAYLOAD_ENCRYPTION_KEYS asks for, or undefined (plain payloads) when it is unset. */
export function dataConverterFromEnv(env: Pick<RuntimeEnv, 'payloadEncryptionKeys'>): DataConverter | undefined {
  return env.payloadEncryptionKeys ? encryptedDataConverter(parseEncryptionKeys(env.payloadEncryptionKeys)) : undefined;
}

export {
  EncryptionCodec,
  encryptedDataConverter,
  parseEncryptionKeys,
  PayloadCodecError,
  type EncryptionKey,
} from './encryption-codec';
