// SAMPLE DATA for the code-analysis example (examples/code-analysis): the agent reads this file, nothing runs it.
import { randomBytes } from 'node:crypto';
import { verifyPassword } from './password';

/** A stored account as the session code needs it. */
export interface Account {
  id: string;
  email: string;
  passwordHash: string;
}

/** Active sessions by session ID; a real service would keep them in Redis. */
const sessions = new Map<string, { accountId: string; createdAt: number }>();

/** Logs a user in: checks email and password and opens a session, returning its ID (null on bad credentials). */
export function login(accounts: readonly Account[], email: string, password: string): string | null {
  const account = accounts.find((candidate) => candidate.email === email.toLowerCase());
  if (!account || !verifyPassword(password, account.passwordHash)) return null;
  const sessionId = randomBytes(24).toString('hex');
  sessions.set(sessionId, { accountId: account.id, createdAt: Date.now() });
  return sessionId;
}

/** Logs a user out by deleting their session, so the session cookie stops working. */
export function logout(sessionId: string): boolean {
  return sessions.delete(sessionId);
}

/** Authenticates a session cookie: the account ID of a live session, or undefined when there is none. */
export function sessionAccount(sessionId: string): string | undefined {
  return sessions.get(sessionId)?.accountId;
}
