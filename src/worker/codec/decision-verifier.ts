import {
  defaultPayloadConverter,
  type Payload,
  type PayloadCodec,
  type PayloadConverter,
  type SerializationContext,
} from '@temporalio/common';
import { verifyDecision, type ApprovalKey } from '../../common/decision-signing';
import { SIGNATURE_FIELD, VERDICT_FIELD } from '../../shared/signed-decision';

/*
 * Either field's name, or a JSON escape that could spell it. The workflow's UTF-8 decoding maps each ASCII byte to
 * itself and never makes an ASCII character out of other bytes (overlong forms become U+FFFD), and JSON can spell a
 * letter of a key only as itself or as a `\u` escape: so a payload whose bytes hold none of these cannot hold either
 * field, however the workflow reads it.
 */
const NEEDLES = [Buffer.from('signature'), Buffer.from('\\u')];

/**
 * The worker side of signed decisions. The worker decodes every activation's payloads with its codecs outside the
 * workflow sandbox, before the workflow (and an update's validator) sees them; this codec, innermost so it sees the
 * decrypted JSON, verifies a signed decision with the worker's keys and writes the verdict into the decoded payload.
 * It always replaces a verdict a sender wrote, so a verdict the validator reads is this codec's. History keeps what
 * was sent (signature included, verdict never), and the keys stay in this process.
 *
 * What it judges is what the workflow will read: the payload is converted by the same payload converter the workflow
 * uses (encoding name and UTF-8 text included), never by a look at its first bytes, so no spelling of a payload
 * (leading whitespace, another encoding name, escapes) reaches the workflow as a decision this codec did not see. It
 * skips cheaply only what cannot hold either field: activity payloads (no decision comes that way) and payloads whose
 * bytes have neither field's name nor an escape. A payload the converter cannot read is passed through: the workflow
 * cannot read it either.
 */
export class DecisionVerifierCodec implements PayloadCodec {
  /** `converter` must be the one the workflows read payloads with (the plugin passes the worker's own). */
  constructor(
    private readonly keys: readonly ApprovalKey[],
    private readonly converter: PayloadConverter = defaultPayloadConverter,
  ) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads;
  }

  async decode(payloads: Payload[], context?: SerializationContext): Promise<Payload[]> {
    if (context?.type === 'activity') return payloads;
    return payloads.map((payload) => this.decodeOne(payload));
  }

  private decodeOne(payload: Payload): Payload {
    const data = payload.data;
    if (!data || data.length === 0) return payload;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (!NEEDLES.some((needle) => bytes.includes(needle))) return payload;
    let value: unknown;
    try {
      value = this.converter.fromPayload(payload);
    } catch {
      return payload;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return payload;
    const object = value as Record<string, unknown>;
    // Only a decision's or an answer's verdict is ever read (by their updates' validators); other payloads are left as
    // they are.
    if (typeof object.callId !== 'string') return payload;
    if (typeof object.decision !== 'string' && typeof object.answer !== 'string') return payload;
    if (!Object.hasOwn(object, SIGNATURE_FIELD) && !Object.hasOwn(object, VERDICT_FIELD)) return payload;
    const rest = { ...object };
    delete rest[VERDICT_FIELD];
    const verified = Object.hasOwn(rest, SIGNATURE_FIELD)
      ? { ...rest, [VERDICT_FIELD]: verifyDecision(this.keys, rest) }
      : rest;
    // Written back by the workflows' own converter, so what the validator reads is exactly this object.
    return this.converter.toPayload(verified);
  }
}
