// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { createHmac } from 'node:crypto';

/** HMAC-SHA256 of a payload, base64url-encoded: a generic keyed checksum. */
export function hmac(payload: string, secret: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}
