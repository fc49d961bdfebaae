// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** Bytes of random salt stored in front of every hash. */
const SALT_BYTES = 16;
/** Length of the derived key. */
const KEY_BYTES = 32;

/** Hashes a plaintext password with scrypt and a random salt, for storing at sign-up. */
export function hashPassword(plaintext: string): string {
  const salt = randomBytes(SALT_BYTES);
  const key = scryptSync(plaintext, salt, KEY_BYTES);
  return `${salt.toString('hex')}:${key.toString('hex')}`;
}

/** Checks a login attempt's password against a stored scrypt hash in constant time. */
export function verifyPassword(plaintext: string, stored: string): boolean {
  const [saltHex, keyHex] = stored.split(':');
  if (!saltHex || !keyHex) return false;
  const expected = Buffer.from(keyHex, 'hex');
  const actual = scryptSync(plaintext, Buffer.from(saltHex, 'hex'), expected.length);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A one-time reset request; the code is mailed to the user and expires after an hour. */
export interface ResetRequest {
  email: string;
  code: string;
  expiresAt: number;
}

/** Sets a new password after checking the one-time reset code the user received by email. */
export function resetPassword(
  request: ResetRequest,
  code: string,
  newPassword: string,
  now: number = Date.now(),
): { ok: true; passwordHash: string } | { ok: false; reason: string } {
  if (now > request.expiresAt) return { ok: false, reason: 'reset code expired' };
  const given = Buffer.from(code);
  const wanted = Buffer.from(request.code);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return { ok: false, reason: 'wrong reset code' };
  if (newPassword.length < 12) return { ok: false, reason: 'password must have at least 12 characters' };
  return { ok: true, passwordHash: hashPassword(newPassword) };
}
