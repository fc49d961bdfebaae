import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { DurableAgentError } from '../shared/errors';
import { formatZodIssues } from '../shared/validation';

/** A person the inbox knows: the name decisions are recorded under, and the roles `approvers: ['role:…']` match. */
export interface InboxUser {
  name: string;
  roles: string[];
}

/** How a request proved who sent it; cookie and header sessions are ambient, so their posts need a CSRF token. */
export type AuthMethod = 'bearer' | 'cookie' | 'header';

/** An authenticated request. */
export interface Authenticated {
  user: InboxUser;
  method: AuthMethod;
  /** The token a form must send back (`csrf` field or `x-csrf-token` header) on every post. */
  csrf: string;
}

/** The inbox's configuration is wrong (no identity source, unreadable token file): it does not start. */
export class InboxConfigError extends DurableAgentError {
  override readonly name = 'InboxConfigError';
}

const userSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  roles: z.array(z.string().trim().min(1)).default([]),
});

/** token → person; problems name the person, never the token (messages end up in logs). */
const usersSchema = z.record(z.string(), z.unknown()).transform((record, context) => {
  const users: Record<string, InboxUser> = {};
  Object.entries(record).forEach(([token, value], index) => {
    const parsed = userSchema.safeParse(value);
    const who = parsed.success ? `"${parsed.data.name}"` : `entry ${index + 1}`;
    if (!parsed.success)
      context.addIssue({ code: 'custom', message: `${who}: ${formatZodIssues(parsed.error.issues)}` });
    else if (token.length < 16)
      context.addIssue({ code: 'custom', message: `the token of ${who} is too short: use at least 16 characters` });
    // Length alone let 16 a's through: a token must at least look random.
    else if (new Set(token).size < 8)
      context.addIssue({
        code: 'custom',
        message: `the token of ${who} is too easy to guess: use a random one, e.g. \`openssl rand -hex 16\``,
      });
    else users[token] = parsed.data;
  });
  return users;
});

/** Where identities come from: bearer tokens mapped to people, and optionally a reverse proxy's trusted header. */
export interface IdentitySource {
  /** token → person, as in a tokens file: `{ "<token>": { "name": "alice", "roles": ["finance"] } }`. */
  tokens: Record<string, InboxUser>;
  /**
   * A header a reverse proxy sets to the authenticated user's name (e.g. `x-forwarded-user`); only for an inbox that
   * the proxy alone can reach. `rolesHeader` (comma-separated) gives their roles.
   */
  trustedHeader?: string;
  rolesHeader?: string;
  /**
   * Required with `trustedHeader`: the proxy sends it in `x-inbox-proxy-secret` with every request. Without it anyone
   * who reaches the port (another local user, a web page by DNS rebinding) could claim any name and role.
   */
  proxySecret?: string;
}

/** The header a reverse proxy proves itself with in trusted-header mode. */
export const PROXY_SECRET_HEADER = 'x-inbox-proxy-secret';
/** How long a browser session lasts after signing in. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** Sessions one person keeps at most; signing in again ends their oldest. */
const MAX_SESSIONS_PER_USER = 50;
/** Sessions kept at most; the oldest go first. */
const MAX_SESSIONS = 10_000;
/** Wrong tokens from one address within a minute before its wrong tokens are refused for a minute. */
export const MAX_FAILED_SIGN_INS = 20;
const FAILURE_WINDOW_MS = 60_000;
/** Addresses with recent failures kept at most. */
const MAX_TRACKED_ADDRESSES = 10_000;

/** Parses a tokens file's text (or INBOX_TOKENS); one line naming every problem when it is not valid. */
export function parseTokens(text: string, origin: string): Record<string, InboxUser> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text it failed on, which here is a token: only the position is said.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new InboxConfigError(
      `${origin} is not valid JSON${position === undefined ? '' : ` (at character ${position})`}: expected { "<token>": { "name": … } }`,
    );
  }
  const parsed = usersSchema.safeParse(json);
  if (!parsed.success) throw new InboxConfigError(`${origin}: ${formatZodIssues(parsed.error.issues)}`);
  return parsed.data;
}

/** Reads the tokens file; its path comes from `--tokens` or INBOX_TOKENS_FILE. */
export function readTokensFile(file: string): Record<string, InboxUser> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new InboxConfigError(`cannot read the tokens file ${file}: ${(error as Error).message}`);
  }
  return parseTokens(text, `tokens file ${file}`);
}

/**
 * The cookie a browser session keeps its session ID in (HttpOnly, SameSite=Strict), never the token: cookies are not
 * scoped by port, so every other web app on the host receives it.
 */
export const SESSION_COOKIE = 'dra_inbox';

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function cookieOf(request: IncomingMessage, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/** The session ID a request carries, under either cookie name (`__Host-` over HTTPS). */
function sessionIdOf(request: IncomingMessage): string | undefined {
  return cookieOf(request, `__Host-${SESSION_COOKIE}`) ?? cookieOf(request, SESSION_COOKIE);
}

function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  const name = secure ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;
  return `${name}=${value}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  const first = Array.isArray(value) ? value[0] : value;
  return first?.trim() || undefined;
}

/** A header a proxy sets, or undefined when missing or sent more than once (a proxy that appends would pass on both). */
function singleHeader(request: IncomingMessage, name: string): string | undefined {
  const values = request.headersDistinct[name.toLowerCase()];
  return values?.length === 1 ? values[0]!.trim() || undefined : undefined;
}

/** The token of an `Authorization: Bearer …` header, if the request has one. */
export function bearerTokenOf(request: IncomingMessage): string | undefined {
  const authorization = header(request, 'authorization');
  return authorization?.toLowerCase().startsWith('bearer ') ? authorization.slice(7).trim() : undefined;
}

/** Checks requests against an {@link IdentitySource}; tokens are compared by digest in constant time. */
export class Authenticator {
  private readonly byDigest: { digest: Buffer; user: InboxUser }[];
  /** Signs CSRF tokens; new at every start, so a restart ends outstanding forms (a reload gets fresh ones). */
  private readonly secret = randomBytes(32);
  /** Browser sessions by ID (random, server-side): ended by logout, expiry or a restart. */
  private readonly sessions = new Map<string, { user: InboxUser; expires: number }>();
  /** Recent failed sign-ins per remote address, and until when an address is refused. */
  private readonly failures = new Map<string, number[]>();
  private readonly refusedUntil = new Map<string, number>();

  constructor(
    private readonly source: IdentitySource,
    private readonly log: (line: string) => void = () => undefined,
  ) {
    this.byDigest = Object.entries(source.tokens).map(([token, user]) => ({ digest: digest(token), user }));
    if (this.byDigest.length === 0 && !source.trustedHeader) {
      throw new InboxConfigError(
        'the inbox needs an identity source: a tokens file (--tokens or INBOX_TOKENS_FILE) or a trusted header from a reverse proxy (--trusted-header); it never takes anonymous decisions',
      );
    }
    if (source.trustedHeader && (source.proxySecret ?? '').length < 16) {
      throw new InboxConfigError(
        `--trusted-header needs a proxy secret of at least 16 characters (INBOX_PROXY_SECRET) that the proxy sends in ${PROXY_SECRET_HEADER}: without it anyone who reaches the port can claim any name and role`,
      );
    }
  }

  /**
   * Starts a browser session for a person: the `Set-Cookie` value carrying its ID (never the token). `secure`: the
   * request came over HTTPS (through the public URL's proxy), so the cookie gets `Secure` and the `__Host-` prefix:
   * browsers then send it only to this origin over TLS, and no other app on the host can set or overwrite it.
   */
  startSession(user: InboxUser, secure = false): string {
    const id = randomBytes(32).toString('base64url');
    // One person signing in over and over ends their own oldest sessions, never other people's.
    const own = [...this.sessions].filter(([, session]) => session.user.name === user.name);
    if (own.length >= MAX_SESSIONS_PER_USER) this.sessions.delete(own[0]![0]);
    if (this.sessions.size >= MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value ?? '');
    this.sessions.set(id, { user, expires: Date.now() + SESSION_TTL_MS });
    return sessionCookie(id, Math.floor(SESSION_TTL_MS / 1000), secure);
  }

  /**
   * Ends the session a request carries (logout): its cookie no longer signs anyone in, wherever it was copied to.
   * Returns the `Set-Cookie` value that clears it in the browser.
   */
  endSession(request: IncomingMessage, secure = false): string {
    const id = sessionIdOf(request);
    if (id) this.sessions.delete(id);
    return sessionCookie('', 0, secure);
  }

  /**
   * Whether a token check from this address is refused for now after too many wrong tokens. Given the `token`: true
   * for a wrong one (counted as one more), false for a right one. The pause is there to stop guessing, and a right
   * token is no guess: refusing it too let anyone behind the same address (a proxy, loopback) keep every token holder
   * out. Without a token: whether the address is paused at all.
   */
  refused(address: string, token?: string): boolean {
    const until = this.refusedUntil.get(address);
    if (until === undefined) return false;
    if (until <= Date.now()) {
      this.refusedUntil.delete(address);
      return false;
    }
    if (token === undefined) return true;
    if (this.userOfToken(token)) return false;
    this.noteFailure(address);
    return true;
  }

  /** Records a failed sign-in (a wrong token); too many from one address refuse its wrong tokens for a minute. */
  noteFailure(address: string): void {
    const now = Date.now();
    // Addresses whose failures are older than the window are forgotten, so many addresses cannot grow the map.
    if (this.failures.size >= MAX_TRACKED_ADDRESSES) {
      for (const [known, times] of this.failures)
        if (times.at(-1)! <= now - FAILURE_WINDOW_MS) this.failures.delete(known);
      for (const [known, until] of this.refusedUntil) if (until <= now) this.refusedUntil.delete(known);
      if (this.failures.size >= MAX_TRACKED_ADDRESSES) this.failures.delete(this.failures.keys().next().value ?? '');
    }
    const recent = (this.failures.get(address) ?? []).filter((at) => at > now - FAILURE_WINDOW_MS);
    recent.push(now);
    this.failures.set(address, recent);
    if (recent.length >= MAX_FAILED_SIGN_INS) {
      this.failures.delete(address);
      this.refusedUntil.set(address, now + FAILURE_WINDOW_MS);
      this.log(`${recent.length} wrong tokens from ${address} within a minute: refusing its wrong tokens for a minute`);
    }
  }

  /** The person a token belongs to, or null. */
  userOfToken(token: string): InboxUser | null {
    const wanted = digest(token);
    // Every entry is compared, so the time taken does not say how close a guess came.
    let found: InboxUser | null = null;
    for (const entry of this.byDigest) if (timingSafeEqual(entry.digest, wanted)) found = entry.user;
    return found;
  }

  /** Who sent a request: a bearer token, the session cookie, or the trusted header, in that order; null if nobody. */
  authenticate(request: IncomingMessage): Authenticated | null {
    const token = bearerTokenOf(request);
    if (token !== undefined) {
      const user = this.userOfToken(token);
      if (!user) this.noteFailure(request.socket.remoteAddress ?? 'unknown');
      return user ? { user, method: 'bearer', csrf: this.csrfFor(`bearer:${user.name}`) } : null;
    }
    const cookie = sessionIdOf(request);
    const session = cookie ? this.sessions.get(cookie) : undefined;
    if (cookie && session) {
      if (session.expires > Date.now())
        return { user: session.user, method: 'cookie', csrf: this.csrfFor(`cookie:${cookie}`) };
      this.sessions.delete(cookie);
    }
    const trusted = this.source.trustedHeader;
    const name = trusted && this.fromProxy(request) ? singleHeader(request, trusted) : undefined;
    if (name && name.length <= 200) {
      const rolesText = this.source.rolesHeader ? singleHeader(request, this.source.rolesHeader) : undefined;
      const roles = (rolesText ?? '')
        .split(',')
        .map((role) => role.trim())
        .filter((role) => role !== '');
      return { user: { name, roles }, method: 'header', csrf: this.csrfFor(`header:${name}`) };
    }
    return null;
  }

  /**
   * Whether a post carries the CSRF token of its session. Bearer requests need none: a browser never adds an
   * Authorization header on its own, so another site cannot forge one.
   */
  checkCsrf(auth: Authenticated, sent: string | undefined): boolean {
    if (auth.method === 'bearer') return true;
    if (!sent) return false;
    const [a, b] = [digest(sent), digest(auth.csrf)];
    return timingSafeEqual(a, b);
  }

  /** Whether the request carries the proxy's secret (compared by digest, in constant time). */
  private fromProxy(request: IncomingMessage): boolean {
    const sent = singleHeader(request, PROXY_SECRET_HEADER);
    return sent !== undefined && timingSafeEqual(digest(sent), digest(this.source.proxySecret ?? ''));
  }

  private csrfFor(session: string): string {
    return createHmac('sha256', this.secret).update(session).digest('base64url');
  }
}
