import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as signBytes,
  timingSafeEqual,
  verify as verifyBytes,
  type KeyObject,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { argsHash } from '../shared/canonical';
import { DurableAgentError } from '../shared/errors';
import {
  signedText,
  SIGNATURE_FIELD,
  type SignatureEnvelope,
  type SignatureVerdict,
  type SignedFields,
} from '../shared/signed-decision';

/** Raised for a signing or verification key that cannot be used; the message says which and why. */
export class SigningKeyError extends DurableAgentError {
  override readonly name = 'SigningKeyError';
}

/** The two ways a decision can be signed: an Ed25519 key pair, or a secret shared with the worker. */
export type SigningAlgorithm = 'ed25519' | 'hmac-sha256';

/** Signs decisions with one key; its ID names the key the worker verifies with. */
export interface DecisionSigner {
  keyId: string;
  algorithm: SigningAlgorithm;
  /** Base64 signature of `text`. */
  sign(text: string): string;
}

/** How long a signature holds unless told otherwise: long enough to send it, short enough to be useless later. */
export const DEFAULT_SIGNATURE_TTL_MS = 5 * 60_000;

/**
 * A signer from key material: a PEM private key (Ed25519), or an HMAC-SHA256 secret (base64, at least 32 bytes).
 * Throws {@link SigningKeyError} for anything else.
 */
export function createDecisionSigner(keyId: string, material: string | Buffer): DecisionSigner {
  const text = material.toString().trim();
  if (text.includes('-----BEGIN')) {
    let key: KeyObject;
    try {
      key = createPrivateKey(text);
    } catch (error) {
      throw new SigningKeyError(`signing key ${keyId}: not a PEM private key (${(error as Error).message})`);
    }
    if (key.asymmetricKeyType !== 'ed25519')
      throw new SigningKeyError(`signing key ${keyId}: expected an Ed25519 key, got ${key.asymmetricKeyType}`);
    return { keyId, algorithm: 'ed25519', sign: (data) => signBytes(null, Buffer.from(data), key).toString('base64') };
  }
  const secret = hmacSecret(keyId, text);
  return {
    keyId,
    algorithm: 'hmac-sha256',
    sign: (data) => createHmac('sha256', secret).update(data).digest('base64'),
  };
}

function hmacSecret(keyId: string, base64: string): Buffer {
  const secret = Buffer.from(base64, 'base64');
  if (secret.length < 32)
    throw new SigningKeyError(`key ${keyId}: an HMAC secret is base64 of at least 32 bytes, got ${secret.length}`);
  return secret;
}

/** A signer read from a key file (PEM Ed25519 private key, or a base64 HMAC secret). */
export function readDecisionSigner(keyId: string, file: string): DecisionSigner {
  let material: string;
  try {
    material = readFileSync(file, 'utf8');
  } catch (error) {
    throw new SigningKeyError(`cannot read signing key file ${file}: ${(error as Error).message}`);
  }
  return createDecisionSigner(keyId, material);
}

/** The signer AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE name, or undefined when they are unset. */
export function signerFromEnv(env: {
  signingKeyId: string | undefined;
  signingKeyFile: string | undefined;
}): DecisionSigner | undefined {
  if (!env.signingKeyId && !env.signingKeyFile) return undefined;
  if (!env.signingKeyId || !env.signingKeyFile)
    throw new SigningKeyError('set both AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE to sign decisions');
  return readDecisionSigner(env.signingKeyId, env.signingKeyFile);
}

/** Which run a signature is for, and for how long. */
export interface SigningTarget {
  workflowId: string;
  /** The first run ID of the run's continue-as-new chain. */
  firstRunId: string;
  /** Default: {@link DEFAULT_SIGNATURE_TTL_MS} from now. */
  expiresAt?: string;
}

/** The decision with its signature: `identity` must be the approver the key belongs to. */
export function signDecision<D extends SignedFields>(
  decision: D,
  signer: DecisionSigner,
  target: SigningTarget,
): D & { signature: SignatureEnvelope } {
  const envelope = {
    keyId: signer.keyId,
    workflowId: target.workflowId,
    firstRunId: target.firstRunId,
    expiresAt: target.expiresAt ?? new Date(Date.now() + DEFAULT_SIGNATURE_TTL_MS).toISOString(),
  };
  return { ...decision, [SIGNATURE_FIELD]: { ...envelope, value: signer.sign(signedText(decision, envelope)) } };
}

/** A key the worker (and `audit --verify`) trusts: whose it is, which roles it vouches for, and how to check it. */
export interface ApprovalKey {
  keyId: string;
  /**
   * Who may sign with it: one person's key names one approver; a service that signs in the name of people it
   * authenticated (the inbox) names each of them.
   */
  approvers: string[];
  /** Roles a decision signed with this key may claim (none: it may claim none). */
  roles: string[];
  algorithm: SigningAlgorithm;
  key: KeyObject | Buffer;
}

interface KeyFileEntry {
  id?: unknown;
  approver?: unknown;
  approvers?: unknown;
  roles?: unknown;
  publicKey?: unknown;
  publicKeyFile?: unknown;
  secret?: unknown;
}

/**
 * Parses a verification key set: `{ "keys": [{ "id", "approver" | "approvers", "roles"?, "publicKey" | "publicKeyFile" | "secret" }] }`
 * (Ed25519 public keys as PEM text or a PEM file beside the JSON; HMAC secrets as base64). Throws one line naming
 * the first bad entry.
 */
export function parseApprovalKeys(json: unknown, baseDir = process.cwd()): ApprovalKey[] {
  const entries = (json as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(entries)) throw new SigningKeyError('approval keys: expected { "keys": [ … ] }');
  const seen = new Set<string>();
  return entries.map((raw: KeyFileEntry, index) => {
    const where = `approval keys[${index}]`;
    if (typeof raw?.id !== 'string' || raw.id === '') throw new SigningKeyError(`${where}: "id" is required`);
    if (seen.has(raw.id)) throw new SigningKeyError(`${where}: key ID ${raw.id} is named twice`);
    seen.add(raw.id);
    const approvers =
      typeof raw.approver === 'string' && raw.approver !== ''
        ? [raw.approver]
        : Array.isArray(raw.approvers)
          ? raw.approvers.map(String).filter((name) => name !== '')
          : [];
    if (approvers.length === 0)
      throw new SigningKeyError(`${where} (${raw.id}): "approver" (or a list "approvers") is required`);
    const roles = Array.isArray(raw.roles) ? raw.roles.map(String) : [];
    const base = { keyId: raw.id, approvers, roles };
    if (typeof raw.secret === 'string')
      return { ...base, algorithm: 'hmac-sha256', key: hmacSecret(raw.id, raw.secret) };
    const pem =
      typeof raw.publicKey === 'string'
        ? raw.publicKey
        : typeof raw.publicKeyFile === 'string'
          ? readPublicKeyFile(path.resolve(baseDir, raw.publicKeyFile), `${where} (${raw.id})`)
          : undefined;
    if (pem === undefined)
      throw new SigningKeyError(`${where} (${raw.id}): give "publicKey", "publicKeyFile" or "secret"`);
    let key: KeyObject;
    try {
      key = createPublicKey(pem);
    } catch (error) {
      throw new SigningKeyError(`${where} (${raw.id}): not a PEM public key (${(error as Error).message})`);
    }
    if (key.asymmetricKeyType !== 'ed25519')
      throw new SigningKeyError(`${where} (${raw.id}): expected an Ed25519 key, got ${key.asymmetricKeyType}`);
    return { ...base, algorithm: 'ed25519', key };
  });
}

/** A PEM file a key entry names; one that cannot be read is the entry's mistake, said as such (not a bare ENOENT). */
function readPublicKeyFile(file: string, where: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    throw new SigningKeyError(
      `${where}: cannot read publicKeyFile ${file} (${code === 'ENOENT' ? 'no such file' : message})`,
    );
  }
}

/**
 * Reads a verification key set from a JSON file (WORKER_APPROVAL_KEYS, `audit --keys`); PEM files it names are
 * relative to it. Every problem is one line naming the file, the same whichever command read it.
 */
export function readApprovalKeysFile(file: string): ApprovalKey[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new SigningKeyError(`cannot read approval keys file ${file}: ${(error as Error).message}`);
  }
  try {
    return parseApprovalKeys(json, path.dirname(file));
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    throw new SigningKeyError(`approval keys file ${file}: ${error.message}`);
  }
}

function signatureHolds(key: ApprovalKey, text: string, value: string): boolean {
  const signature = Buffer.from(value, 'base64');
  if (key.algorithm === 'ed25519') return verifyBytes(null, Buffer.from(text), key.key, signature);
  const expected = createHmac('sha256', key.key).update(text).digest();
  return expected.length === signature.length && timingSafeEqual(expected, signature);
}

/**
 * Verifies the signature a decision payload carries against a key set: by a known key, over this payload's fields,
 * for the approver and roles the key vouches for. Says nothing of the run, the call or the time: the workflow checks
 * those against what it knows.
 */
export function verifyDecision(keys: readonly ApprovalKey[], payload: Record<string, unknown>): SignatureVerdict {
  const envelope = payload[SIGNATURE_FIELD] as Partial<SignatureEnvelope> | undefined;
  if (!envelope || typeof envelope !== 'object') return { ok: false, why: 'the decision is not signed' };
  const { keyId, workflowId, firstRunId, expiresAt, value } = envelope;
  if (![keyId, workflowId, firstRunId, expiresAt, value].every((field) => typeof field === 'string'))
    return { ok: false, why: 'the signature lacks keyId, workflowId, firstRunId, expiresAt or value' };
  const key = keys.find((candidate) => candidate.keyId === keyId);
  if (!key) return { ok: false, keyId, why: `key ${keyId} is not one this worker trusts` };
  const fields = payload as unknown as SignedFields;
  const claims = { keyId: keyId!, workflowId: workflowId!, firstRunId: firstRunId!, expiresAt: expiresAt! };
  let holds: boolean;
  let text = '';
  try {
    text = signedText(fields, claims);
    holds = signatureHolds(key, text, value!);
  } catch {
    // A malformed signature (or fields a forger made unserialisable) is simply not a valid one.
    holds = false;
  }
  if (!holds) return { ok: false, keyId, why: `the signature does not match key ${keyId}` };
  // As the decision check will read them: trimmed.
  const identity = typeof fields.identity === 'string' ? fields.identity.trim() : undefined;
  if (identity === undefined || !key.approvers.includes(identity)) {
    const owner = key.approvers.join(', ');
    return { ok: false, keyId, why: `key ${keyId} belongs to ${owner}, not ${identity ?? 'anonymous'}` };
  }
  const unvouched = (fields.roles ?? []).map((role) => role.trim()).filter((role) => !key.roles.includes(role));
  if (unvouched.length > 0)
    return { ok: false, keyId, why: `key ${keyId} does not vouch for role ${unvouched.join(', ')}` };
  return { ok: true, keyId: keyId!, approver: identity, digest: argsHash(text) };
}
