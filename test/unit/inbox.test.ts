import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { PendingItem } from '../../src/client/decisions';
import { Authenticator, InboxConfigError, parseTokens } from '../../src/inbox/auth';
import { escapeHtml, html } from '../../src/inbox/html';
import { filterItems } from '../../src/inbox/items';

const TOKEN = 'alice-token-0123456789abcdef';
const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

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
  });

  it('knows people by bearer token, session cookie or trusted header; sessions need their CSRF token', () => {
    const auth = new Authenticator({
      tokens: parseTokens(JSON.stringify({ [TOKEN]: { name: 'alice', roles: ['finance'] } }), 'test'),
      trustedHeader: 'x-forwarded-user',
      rolesHeader: 'x-forwarded-groups',
    });
    const bearer = auth.authenticate(request({ authorization: `Bearer ${TOKEN}` }));
    expect(bearer).toMatchObject({ user: { name: 'alice', roles: ['finance'] }, method: 'bearer' });
    expect(auth.authenticate(request({ authorization: 'Bearer nope' }))).toBeNull();
    const cookie = auth.authenticate(request({ cookie: `other=1; dra_inbox=${TOKEN}` }));
    expect(cookie?.method).toBe('cookie');
    expect(auth.checkCsrf(cookie!, undefined)).toBe(false);
    expect(auth.checkCsrf(cookie!, 'forged')).toBe(false);
    expect(auth.checkCsrf(cookie!, cookie!.csrf)).toBe(true);
    expect(auth.checkCsrf(bearer!, undefined)).toBe(true); // a browser never adds a bearer header by itself
    const proxied = auth.authenticate(request({ 'x-forwarded-user': 'bob', 'x-forwarded-groups': 'ops, finance' }));
    expect(proxied).toMatchObject({ user: { name: 'bob', roles: ['ops', 'finance'] }, method: 'header' });
    expect(auth.checkCsrf(proxied!, cookie!.csrf)).toBe(false); // one session's token is no other's
    expect(auth.authenticate(request({}))).toBeNull();
  });
});

describe('inbox pages', () => {
  it('escapes what runs and models wrote', () => {
    expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
      '&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;',
    );
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
});
