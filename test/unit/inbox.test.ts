import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { PendingItem } from '../../src/client/decisions';
import { Authenticator, InboxConfigError, parseTokens } from '../../src/inbox/auth';
import { escapeHtml, html } from '../../src/inbox/html';
import { filterItems, renderItem } from '../../src/inbox/items';

const TOKEN = 'alice-token-0123456789abcdef';
const SECRET = 'proxy-secret-0123456789';
/** A request as node:http gives it: headers by lower-case name, repeated ones also listed apart. */
const request = (headers: Record<string, string | string[]>) =>
  ({
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value].flat().join(', ')])),
    headersDistinct: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value].flat()])),
    socket: { remoteAddress: '127.0.0.1' },
  }) as unknown as IncomingMessage;

describe('inbox identities', () => {
  it('refuses to start without an identity source, and refuses short tokens', () => {
    expect(() => new Authenticator({ tokens: {} })).toThrow(InboxConfigError);
    expect(() => parseTokens('{"short": {"name": "a"}}', 'INBOX_TOKENS')).toThrow(
      'INBOX_TOKENS: the token of "a" is too short: use at least 16 characters',
    );
    expect(() => parseTokens('not json', 'INBOX_TOKENS')).toThrow(/not valid JSON/);
    // N24: a token pasted without its JSON is never quoted back (messages reach logs).
    expect(() => parseTokens('prod-secret-token-XYZ123456789', 'INBOX_TOKENS')).toThrow(
      /^INBOX_TOKENS is not valid JSON/,
    );
    expect(() => parseTokens('prod-secret-token-XYZ123456789', 'INBOX_TOKENS')).not.toThrow(/prod|secre/);
    expect(() => parseTokens(JSON.stringify({ ['a'.repeat(16)]: { name: 'a' } }), 'INBOX_TOKENS')).toThrow(
      'INBOX_TOKENS: the token of "a" is too easy to guess: use a random one',
    );
  });

  it('knows people by bearer token, session cookie or trusted header; sessions need their CSRF token', () => {
    const auth = new Authenticator({
      tokens: parseTokens(JSON.stringify({ [TOKEN]: { name: 'alice', roles: ['finance'] } }), 'test'),
      trustedHeader: 'x-forwarded-user',
      rolesHeader: 'x-forwarded-groups',
      proxySecret: SECRET,
    });
    const bearer = auth.authenticate(request({ authorization: `Bearer ${TOKEN}` }));
    expect(bearer).toMatchObject({ user: { name: 'alice', roles: ['finance'] }, method: 'bearer' });
    expect(auth.authenticate(request({ authorization: 'Bearer nope' }))).toBeNull();
    // The cookie holds a session ID, never the token (N14): the token itself is no cookie.
    expect(auth.authenticate(request({ cookie: `dra_inbox=${TOKEN}` }))).toBeNull();
    const setCookie = auth.startSession({ name: 'alice', roles: ['finance'] });
    expect(setCookie).not.toContain(TOKEN);
    expect(setCookie).toMatch(/^dra_inbox=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/);
    const session = /^dra_inbox=([^;]+)/.exec(setCookie)![1]!;
    const cookie = auth.authenticate(request({ cookie: `other=1; dra_inbox=${session}` }));
    expect(cookie?.method).toBe('cookie');
    expect(auth.checkCsrf(cookie!, undefined)).toBe(false);
    expect(auth.checkCsrf(cookie!, 'forged')).toBe(false);
    expect(auth.checkCsrf(cookie!, cookie!.csrf)).toBe(true);
    expect(auth.checkCsrf(bearer!, undefined)).toBe(true); // a browser never adds a bearer header by itself
    const viaProxy = {
      'x-inbox-proxy-secret': SECRET,
      'x-forwarded-user': 'bob',
      'x-forwarded-groups': 'ops, finance',
    };
    const proxied = auth.authenticate(request(viaProxy));
    expect(proxied).toMatchObject({ user: { name: 'bob', roles: ['ops', 'finance'] }, method: 'header' });
    expect(auth.checkCsrf(proxied!, cookie!.csrf)).toBe(false); // one session's token is no other's
    expect(auth.authenticate(request({}))).toBeNull();
  });

  it('over HTTPS the session cookie is Secure and __Host- prefixed, so no other app on the host gets or sets it', () => {
    const auth = new Authenticator({ tokens: parseTokens(JSON.stringify({ [TOKEN]: { name: 'a' } }), 't') });
    const setCookie = auth.startSession({ name: 'a', roles: [] }, true);
    expect(setCookie).toMatch(
      /^__Host-dra_inbox=[\w-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200; Secure$/,
    );
    const id = /^__Host-dra_inbox=([^;]+)/.exec(setCookie)![1]!;
    expect(auth.authenticate(request({ cookie: `__Host-dra_inbox=${id}` }))?.user.name).toBe('a');
  });

  it("one person signing in again and again ends only their own oldest sessions, never another's", () => {
    const auth = new Authenticator({ tokens: parseTokens(JSON.stringify({ [TOKEN]: { name: 'a' } }), 't') });
    const idOf = (setCookie: string) => /^dra_inbox=([^;]+)/.exec(setCookie)![1]!;
    const bob = idOf(auth.startSession({ name: 'bob', roles: [] }));
    const first = idOf(auth.startSession({ name: 'mallory', roles: [] }));
    for (let index = 0; index < 60; index++) auth.startSession({ name: 'mallory', roles: [] });
    expect(auth.authenticate(request({ cookie: `dra_inbox=${bob}` }))?.user.name).toBe('bob');
    expect(auth.authenticate(request({ cookie: `dra_inbox=${first}` }))).toBeNull();
  });

  it('takes a trusted header only with the proxy secret, and only when sent once (red team N5)', () => {
    const header = { trustedHeader: 'x-forwarded-user', rolesHeader: 'x-forwarded-roles' };
    expect(() => new Authenticator({ tokens: {}, ...header })).toThrow(/needs a proxy secret/);
    const auth = new Authenticator({ tokens: {}, ...header, proxySecret: SECRET });
    const claim = { 'x-forwarded-user': 'mallory', 'x-forwarded-roles': 'finance' };
    expect(auth.authenticate(request(claim))).toBeNull();
    expect(auth.authenticate(request({ ...claim, 'x-inbox-proxy-secret': 'guess-guess-guess-guess' }))).toBeNull();
    expect(auth.authenticate(request({ ...claim, 'x-inbox-proxy-secret': SECRET }))?.user).toEqual({
      name: 'mallory',
      roles: ['finance'],
    });
    // A proxy that appends its own header to the client's passes both on: neither is believed.
    const appended = {
      'x-inbox-proxy-secret': SECRET,
      'x-forwarded-user': 'bob',
      'x-forwarded-roles': ['finance', 'ops'],
    };
    expect(auth.authenticate(request(appended))?.user).toEqual({ name: 'bob', roles: [] });
  });

  it('refuses an address for a minute after 20 wrong tokens, and says so once (red team N23)', () => {
    const lines: string[] = [];
    const auth = new Authenticator({ tokens: parseTokens(JSON.stringify({ [TOKEN]: { name: 'a' } }), 't') }, (line) =>
      lines.push(line),
    );
    for (let guess = 0; guess < 19; guess++) auth.authenticate(request({ authorization: `Bearer guess-${guess}` }));
    expect(auth.refused('127.0.0.1', 'guess-x')).toBe(false);
    auth.authenticate(request({ authorization: 'Bearer guess-20' }));
    expect(auth.refused('127.0.0.1', 'guess-x')).toBe(true);
    expect(auth.refused('127.0.0.1', TOKEN)).toBe(false); // a right token is no guess
    expect(auth.refused('10.0.0.9', 'guess-x')).toBe(false);
    expect(lines).toEqual(['20 wrong tokens from 127.0.0.1 within a minute: refusing its wrong tokens for a minute']);
  });
});

describe('inbox pages', () => {
  it('escapes what runs and models wrote', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
    // Control characters show as escapes (N11); line breaks stay line breaks.
    expect(escapeHtml('a\r\nb\rc\u001b[2J\td')).toBe('a\nb\\x0dc\\x1b[2J\td');
    const rendered = html`<p>${'<b>'}</p>
      ${[html`<i>ok</i>`]}`.html;
    expect(rendered.replace(/\s+/g, '')).toBe('<p>&lt;b&gt;</p><i>ok</i>');
  });

  it('filters the list by tool and by how long items have waited', () => {
    const now = Date.parse('2026-01-01T01:00:00Z');
    const base = { argsHash: 'h', args: {}, question: 'q?', deadline: '2026-01-02T00:00:00Z' };
    const items: PendingItem[] = [
      {
        kind: 'approval',
        workflowId: 'a',
        callId: 'c1-1',
        tool: 'transfer',
        requestedAt: '2026-01-01T00:00:00Z',
        ...base,
      },
      {
        kind: 'approval',
        workflowId: 'b',
        callId: 'c1-1',
        tool: 'delete',
        requestedAt: '2026-01-01T00:55:00Z',
        ...base,
      },
      {
        kind: 'question',
        workflowId: 'c',
        callId: 'c2-1',
        question: 'Which?',
        requestedAt: '2026-01-01T00:10:00Z',
        deadline: '',
      },
    ];
    const ids = (filter: Parameters<typeof filterItems>[1]) =>
      filterItems(items, filter, now).map((item) => item.workflowId);
    expect(ids({})).toEqual(['a', 'b', 'c']);
    expect(ids({ tool: 'transfer' })).toEqual(['a']);
    expect(ids({ olderThanMinutes: 30 })).toEqual(['a', 'c']);
    expect(ids({ tool: 'delete', olderThanMinutes: 30 })).toEqual([]);
  });

  it('shows a call that may have happened with its three choices and no edit form', () => {
    const item: PendingItem = {
      kind: 'approval',
      workflowId: 'w',
      callId: 'c2-1:uncertain',
      tool: 'pay',
      args: { amount: 40 },
      argsHash: 'h',
      question: 'This pay call may have happened: …',
      requestedAt: '2026-01-01T00:00:00Z',
      deadline: '2026-01-02T00:00:00Z',
      reason: 'uncertain_effect',
      detail: 'payment search answered HTTP 503',
    };
    const page = renderItem(item, 'csrf').html;
    expect(page).toContain('call may have happened');
    expect(page).toContain('The tool could not tell: payment search answered HTTP 503');
    expect(page).toMatch(/value="approve">Run it again/);
    expect(page).toMatch(/value="respond">Treat as done/);
    expect(page).toMatch(/value="reject">Skip it/);
    expect(page).not.toContain('value="edit"');
    expect(page).not.toContain('approve_always');
  });
});
