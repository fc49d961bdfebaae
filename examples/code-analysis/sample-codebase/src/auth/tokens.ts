// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { timingSafeEqual } from 'node:crypto';
import { hmac } from '../utils/crypto';

/** Claims carried by an access token. */
export interface TokenClaims {
  userId: string;
  expiresAt: number;
}

/** Issues a signed access token (HMAC-SHA256) for an authenticated user, valid for `ttlMs`. */
export function issueToken(userId: string, secret: string, ttlMs = 15 * 60_000, now = Date.now()): string {
  const payload = Buffer.from(JSON.stringify({ userId, expiresAt: now + ttlMs })).toString('base64url');
  return `${payload}.${hmac(payload, secret)}`;
}

/** Verifies an access token's signature and expiry and returns its claims, or null when it must be refused. */
export function verifyToken(token: string, secret: string, now = Date.now()): TokenClaims | null {
  const [payload, signature] = token.split('.');
  if (!payload || !signature) return null;
  const expected = Buffer.from(hmac(payload, secret));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as TokenClaims;
  return claims.expiresAt > now ? claims : null;
}
