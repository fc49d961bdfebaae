import type { Payload, PayloadCodec, SerializationContext } from '@temporalio/common';
import { verifyDecision, type ApprovalKey } from '../../client/decision-signing';
import { SIGNATURE_FIELD, VERDICT_FIELD } from '../../shared/signed-decision';

const JSON_ENCODING = 'json/plain';
const encoder = new TextEncoder();
const decoder = new TextDecoder();
// Either field's name, or a JSON escape that could spell it: a payload with none of these cannot hold either field.
const NEEDLES = [Buffer.from('signature'), Buffer.from('\\u')];

/**
 * The worker side of signed decisions. The worker decodes every activation's payloads with its codecs outside the
 * workflow sandbox, before the workflow (and an update's validator) sees them; this codec, innermost so it sees the
 * decrypted JSON, verifies a signed decision with the worker's keys and writes the verdict into the decoded payload.
 * It always replaces a verdict a sender wrote, so a verdict the validator reads is this codec's. History keeps what
 * was sent (signature included, verdict never), and the keys stay in this process.
 *
 * It sees every payload, so it skips cheaply: activity payloads (no decision comes that way), non-JSON payloads, and
 * payloads whose bytes cannot hold either field are passed through untouched, without parsing; a parsed payload that
 * is not a decision (`callId` and `decision`) is passed through too.
 */
export class DecisionVerifierCodec implements PayloadCodec {
  constructor(private readonly keys: readonly ApprovalKey[]) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    if (context?.type === 'activity') return payloads;
    return payloads.map((payload) => this.decodeOne(payload));
  }

  private decodeOne(payload: Payload): Payload {
    const encoding = payload.metadata?.encoding;
    const data = payload.data;
    if (!encoding || !data || data.length === 0 || decoder.decode(encoding) !== JSON_ENCODING) return payload;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (bytes[0] !== 0x7b /* { */ || !NEEDLES.some((needle) => bytes.includes(needle))) return payload;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return payload;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return payload;
    const object = value as Record<string, unknown>;
    // Only a decision's verdict is ever read (by the decide update's validator); other payloads are left as they are.
    if (typeof object.callId !== 'string' || typeof object.decision !== 'string') return payload;
    if (!Object.hasOwn(object, SIGNATURE_FIELD) && !Object.hasOwn(object, VERDICT_FIELD)) return payload;
    const rest = { ...object };
    delete rest[VERDICT_FIELD];
    const verified = Object.hasOwn(rest, SIGNATURE_FIELD)
      ? { ...rest, [VERDICT_FIELD]: verifyDecision(this.keys, rest) }
      : rest;
    return { ...payload, data: encoder.encode(JSON.stringify(verified)) };
  }
}
