import { argsHash, canonicalJson } from './canonical';
import { jsonObject, strict, text, type ShapeOf } from './payload-check';

/*
 * Signed decisions (approvals.requireSigned). A sender signs what a decision means for one run; the worker's
 * verifying codec (src/worker/codec/decision-verifier.ts) checks the signature outside the sandbox, with keys that
 * never enter a run's config or history, and writes its verdict into the decoded payload. The update validator then
 * holds the verdict's claims to what the run knows. This module is the part both sides share: pure, so it runs in
 * the sandbox too.
 */

/** The payload field holding a decision's signature. */
export const SIGNATURE_FIELD = 'signature';
/** The payload field the worker's verifying codec writes its verdict to; whatever a sender put there is replaced. */
export const VERDICT_FIELD = 'signatureVerdict';

const envelopeShape = {
  keyId: text({ min: 1, max: 200 }),
  workflowId: text({ min: 1, max: 1000 }),
  firstRunId: text({ min: 1, max: 200 }),
  expiresAt: text({ min: 1, max: 40 }),
  /** Base64 of the Ed25519 signature or the HMAC-SHA256 of {@link signedText}. */
  value: text({ min: 1, max: 200 }),
};

/** The signature a decision carries: the key, the run it is for, until when it holds, and the signature itself. */
export type SignatureEnvelope = ShapeOf<typeof envelopeShape>;

/** Checks a decision's signature field. */
export const signatureEnvelopeCheck = strict(envelopeShape);

/** The verdict field as the payload check admits it (its meaning is read by {@link verdictOf}). */
export const verdictCheck = jsonObject;

/**
 * The fields a signature covers (the payload's own, before its identity is trimmed): a decision's, or an answer's
 * (`answer`, no `decision`: a person's answer to a question of the run, such as an MCP server's form).
 */
export interface SignedFields {
  callId: string;
  argsHash?: string | undefined;
  decision?: string | undefined;
  answer?: string | undefined;
  always?: boolean | undefined;
  args?: Record<string, unknown> | undefined;
  reason?: string | undefined;
  observation?: string | undefined;
  identity?: string | undefined;
  roles?: string[] | undefined;
}

/**
 * The exact text a decision's signature is over: the run (workflow ID and the first run ID of its chain), the call and
 * its arguments' hash, the decision with its edit, reason or observation, the approver and roles, the expiry and the
 * key. Canonical JSON, so signer and verifier build the same bytes whatever order the fields came in; the fields the
 * decision check trims (reason, identity, roles) are trimmed here too, so the worker's codec (which sees the payload as
 * sent) and the validator (which sees it checked) agree on the text.
 */
export function signedText(fields: SignedFields, envelope: Omit<SignatureEnvelope, 'value'>): string {
  // An answer's text has a tag of its own: no signature over a decision can pass for one over an answer, or back.
  if (fields.decision === undefined) {
    return canonicalJson({
      v: 'durable-react-agent/answer/1',
      workflowId: envelope.workflowId,
      firstRunId: envelope.firstRunId,
      callId: fields.callId,
      answer: fields.answer?.trim() ?? null,
      approver: fields.identity?.trim() ?? null,
      roles: (fields.roles ?? []).map((role) => role.trim()).sort(),
      expiresAt: envelope.expiresAt,
      keyId: envelope.keyId,
    });
  }
  return canonicalJson({
    v: 'durable-react-agent/decision/1',
    workflowId: envelope.workflowId,
    firstRunId: envelope.firstRunId,
    callId: fields.callId,
    argsHash: fields.argsHash ?? null,
    decision: fields.decision,
    always: fields.always === true,
    args: fields.args ?? null,
    reason: fields.reason?.trim() ?? null,
    observation: fields.observation ?? null,
    approver: fields.identity?.trim() ?? null,
    roles: (fields.roles ?? []).map((role) => role.trim()).sort(),
    expiresAt: envelope.expiresAt,
    keyId: envelope.keyId,
  });
}

/** A short digest of the signed text, so the validator knows a verdict is about this very decision. */
export function signedDigest(fields: SignedFields, envelope: Omit<SignatureEnvelope, 'value'>): string {
  return argsHash(signedText(fields, envelope));
}

/** What the worker's codec found: the signature holds (by this key, for this approver), or why not. */
export type SignatureVerdict =
  { ok: true; keyId: string; approver: string; digest: string } | { ok: false; keyId?: string; why: string };

/** Reads a verdict field; anything not shaped like a verdict is treated as absent. */
export function verdictOf(value: unknown): SignatureVerdict | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const verdict = value as Record<string, unknown>;
  if (verdict.ok === true && typeof verdict.keyId === 'string' && typeof verdict.approver === 'string') {
    return {
      ok: true,
      keyId: verdict.keyId,
      approver: verdict.approver,
      digest: typeof verdict.digest === 'string' ? verdict.digest : '',
    };
  }
  if (verdict.ok === false && typeof verdict.why === 'string') {
    return { ok: false, why: verdict.why, ...(typeof verdict.keyId === 'string' ? { keyId: verdict.keyId } : {}) };
  }
  return undefined;
}

/** Why a signed decision was refused (a {@link import('./approvals').RefusalReason}). */
export type SignatureRefusal =
  'unsigned' | 'invalid_signature' | 'signature_expired' | 'signature_reused' | 'signature_mismatch';

/** What the validator knows to hold a verdict's claims to. */
export interface SigningFacts {
  workflowId: string;
  firstRunId: string;
  /** The pending call's argument hash (none for an answer: a question has no arguments). */
  argsHash?: string;
  /** Workflow time, in ms. */
  nowMs: number;
}

/** The key a used signature is remembered by: short, and the same on every replay. */
export function signatureDigest(envelope: Pick<SignatureEnvelope, 'value'>): string {
  return argsHash(envelope.value);
}

/**
 * Holds a signed decision's verdict to the run's facts; null when it may be applied. Only the update validator calls
 * it: the verdict depends on the worker's keys of the day, so the handler (which also runs on replay) never reads it.
 */
export function checkVerdict(
  fields: SignedFields,
  envelope: SignatureEnvelope | undefined,
  rawVerdict: unknown,
  facts: SigningFacts,
): { reason: SignatureRefusal; message: string } | null {
  const call = `${fields.decision === undefined ? 'question' : 'call'} ${fields.callId}`;
  if (!envelope) return { reason: 'unsigned', message: `Unsigned decision refused: ${call} needs a signed decision` };
  const verdict = verdictOf(rawVerdict);
  if (!verdict) {
    return {
      reason: 'invalid_signature',
      message: 'Signature refused: no worker verified it (the worker must run DurableAgentPlugin)',
    };
  }
  if (!verdict.ok) return { reason: 'invalid_signature', message: `Signature refused: ${verdict.why}` };
  if (verdict.digest !== signedDigest(fields, envelope))
    return { reason: 'invalid_signature', message: 'Signature refused: the verdict is about another decision' };
  if (verdict.approver !== fields.identity) {
    return {
      reason: 'invalid_signature',
      message: `Signature refused: key ${verdict.keyId} belongs to ${verdict.approver}, not ${fields.identity ?? 'an anonymous sender'}`,
    };
  }
  const binding = bindingProblem(envelope, facts);
  if (binding === 'other_run') {
    return {
      reason: 'signature_mismatch',
      message: `Signature refused: it was made for run ${envelope.workflowId} (${envelope.firstRunId}), not this one`,
    };
  }
  // A decision names the call's arguments; an answer has none to name.
  if (fields.decision !== undefined && fields.argsHash !== facts.argsHash) {
    return {
      reason: 'signature_mismatch',
      message: `Signature refused: it approves arguments ${fields.argsHash ?? '(none named)'}, ${call} has ${facts.argsHash}`,
    };
  }
  if (binding === 'expired')
    return { reason: 'signature_expired', message: `Signature refused: it expired at ${envelope.expiresAt}` };
  return null;
}

/**
 * Whether a signature is bound to another run than this one, or had expired by `nowMs`: the validator asks it when a
 * decision arrives, the audit again at the time the server accepted it.
 */
export function bindingProblem(
  envelope: Pick<SignatureEnvelope, 'workflowId' | 'firstRunId' | 'expiresAt'>,
  run: { workflowId: string; firstRunId: string; nowMs: number },
): 'other_run' | 'expired' | null {
  if (envelope.workflowId !== run.workflowId || envelope.firstRunId !== run.firstRunId) return 'other_run';
  const expires = Date.parse(envelope.expiresAt);
  return Number.isFinite(expires) && expires > run.nowMs ? null : 'expired';
}
