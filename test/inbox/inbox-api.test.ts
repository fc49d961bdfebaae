import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../src/inbox';
import { useHarness, waitForPending } from '../support/harness';
import { ALICE_TOKEN, BOB_TOKEN, call, PEOPLE, recordedDecisions, signIn } from './support';

const harness = useHarness();
let inbox: Inbox;
/** What the inbox logs, as an operator's log would hold it. */
const logged: string[] = [];

beforeAll(async () => {
  inbox = await startInbox({
    client: harness.client,
    identities: { tokens: PEOPLE },
    pollMs: 200,
    log: (line) => logged.push(line),
  });
});
afterAll(async () => {
  await inbox.close();
});

const thought = 'The user asked for this record to go, so I delete it.';
const deleteTurns = (id: string) => [
  { thought, toolCalls: [{ name: 'delete_record', args: { id } }] },
  { answer: `deleted ${id}` },
];

/** A GET with a Host header of our choosing (fetch sets its own), as a DNS-rebinding page's requests arrive. */
function getWithHost(base: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('who may reach the inbox (red team N5, N14)', () => {
  it('a request naming another Host is refused, a valid token or proxy header notwithstanding', async () => {
    const port = new URL(inbox.url).port;
    const bearer = { authorization: `Bearer ${ALICE_TOKEN}` };
    expect(await getWithHost(inbox.url, '/api/pending', { ...bearer, host: `127.0.0.1:${port}` })).toBe(200);
    expect(await getWithHost(inbox.url, '/api/pending', { ...bearer, host: `localhost:${port}` })).toBe(200);
    expect(await getWithHost(inbox.url, '/api/pending', { ...bearer, host: `evil.example:${port}` })).toBe(421);
    // A malformed escape in a run path is the client's mistake (N30: it was a 502).
    expect((await call(inbox.url, '/runs/%ZZ/events', { token: ALICE_TOKEN })).status).toBe(400);
  });

  it("trusted-header mode believes a name only with the proxy's secret, and never from another Host", async () => {
    const secret = 'proxy-secret-0123456789';
    const proxied = await startInbox({
      client: harness.client,
      identities: {
        tokens: {},
        trustedHeader: 'x-forwarded-user',
        rolesHeader: 'x-forwarded-roles',
        proxySecret: secret,
      },
      publicUrl: 'https://inbox.example.com',
    });
    try {
      const port = new URL(proxied.url).port;
      const claim = { 'x-forwarded-user': 'mallory', 'x-forwarded-roles': 'finance', accept: 'application/json' };
      // The report's repro: a rebinding page sets the headers itself; it does not know the secret.
      expect(await getWithHost(proxied.url, '/api/pending', { ...claim, host: `evil.example:${port}` })).toBe(421);
      expect(await getWithHost(proxied.url, '/api/pending', { ...claim, host: `127.0.0.1:${port}` })).toBe(401);
      const viaProxy = { ...claim, 'x-inbox-proxy-secret': secret };
      expect(await getWithHost(proxied.url, '/api/pending', { ...viaProxy, host: 'inbox.example.com' })).toBe(200);
    } finally {
      await proxied.close();
    }
  });

  it('wrong tokens refuse only wrong tokens from that address: right tokens and sessions go on (N23, T10)', async () => {
    const guarded = await startInbox({ client: harness.client, identities: { tokens: PEOPLE } });
    const signInStatus = async (token: string) =>
      (
        await fetch(`${guarded.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, next: '/' }),
          redirect: 'manual',
        })
      ).status;
    try {
      const { cookie } = await signIn(guarded.url, ALICE_TOKEN);
      for (let guess = 0; guess < 20; guess++)
        await call(guarded.url, '/api/pending', { token: `guess-${guess}-abcdefgh` });
      // Guessing goes no further from this address, by bearer or by the sign-in form.
      expect((await call(guarded.url, '/api/pending', { token: 'guess-21-abcdefgh' })).status).toBe(429);
      expect(await signInStatus('guess-22-abcdefgh')).toBe(429);
      // A right token is no guess: the scripts and people behind the same address (a proxy) are not locked out.
      expect((await call(guarded.url, '/api/pending', { token: ALICE_TOKEN })).status).toBe(200);
      expect((await call(guarded.url, '/api/pending', { token: BOB_TOKEN })).status).toBe(200);
      expect(await signInStatus(BOB_TOKEN)).toBe(303);
      expect((await call(guarded.url, '/api/pending', { cookie })).status).toBe(200);
      expect((await call(guarded.url, '/api/pending', { token: 'guess-23-abcdefgh' })).status).toBe(429);
    } finally {
      await guarded.close();
    }
  });

  it('the session cookie is a session ID, not the token, and logging out ends it wherever it was copied', async () => {
    const { cookie, csrf } = await signIn(inbox.url, ALICE_TOKEN);
    expect(cookie).toMatch(/^dra_inbox=[\w-]{40,}$/);
    expect(cookie).not.toContain(ALICE_TOKEN);
    expect((await call(inbox.url, '/api/pending', { cookie })).status).toBe(200);
    const out = await call(inbox.url, '/logout', { cookie, csrf, body: {}, origin: inbox.url });
    expect(out.status).toBe(303);
    expect((await call(inbox.url, '/api/pending', { cookie })).status).toBe(401);
  });
});

describe('sessions under attack (issue 45, item 6)', () => {
  it('a cookie planted before sign-in is refused, and signing in while holding it gives a new session ID', async () => {
    const planted = 'dra_inbox=planted-by-an-attacker-0123456789abcdefghijklmnopqrstuv';
    expect((await call(inbox.url, '/api/pending', { cookie: planted })).status).toBe(401);
    const login = await fetch(`${inbox.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: planted },
      body: new URLSearchParams({ token: ALICE_TOKEN, next: '/' }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const issued = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(issued).toMatch(/^dra_inbox=[\w-]{40,}$/);
    expect(issued).not.toBe(planted);
    // The planted ID is still nobody's session.
    expect((await call(inbox.url, '/api/pending', { cookie: planted })).status).toBe(401);
    expect((await call(inbox.url, '/api/pending', { cookie: issued })).status).toBe(200);
  });

  // Every route that changes anything: a session post needs its CSRF token and the inbox's own origin.
  it.each(['/logout', '/runs/some-run/decide', '/runs/some-run/answer', '/runs/some-run/budget'])(
    'POST %s with a session refuses a missing or wrong CSRF token and another origin',
    async (path) => {
      const { cookie, csrf } = await signIn(inbox.url, ALICE_TOKEN);
      const body = { callId: 'c1-1', decision: 'approve', answer: 'yes', extend: { maxIterations: 5 } };
      expect((await call(inbox.url, path, { cookie, body })).status).toBe(403);
      expect((await call(inbox.url, path, { cookie, body, csrf: 'forged' })).status).toBe(403);
      expect((await call(inbox.url, path, { cookie, body, csrf, origin: 'http://evil.example' })).status).toBe(403);
      // The refused posts changed nothing: the session is still signed in.
      expect((await call(inbox.url, '/api/pending', { cookie })).status).toBe(200);
    },
  );
});

describe('runs whose worker is gone', () => {
  it('are named on the list and their page says why, within seconds, instead of showing nothing waiting', async () => {
    const run = await harness.start(deleteTurns('r-gone'), 'clean up');
    await waitForPending(harness, run.workflowId);
    // Visibility shows the run as waiting before the worker goes.
    await expect
      .poll(async () => JSON.stringify((await call(inbox.url, '/api/pending', { token: ALICE_TOKEN })).json()))
      .toContain(run.workflowId);
    await harness.restartWorker(async () => {
      // An inbox that read the run before keeps showing its item (its visibility record did not change); one that
      // never read it names it as unreadable.
      const cached = await call(inbox.url, '/api/pending', { token: ALICE_TOKEN });
      expect(JSON.stringify(cached.json())).toContain(run.workflowId);
      const fresh = await startInbox({ client: harness.client, identities: { tokens: PEOPLE } });
      try {
        const listing = await call(fresh.url, '/api/pending', { token: ALICE_TOKEN });
        expect(JSON.stringify(listing.json())).not.toContain(run.workflowId);
        expect(listing.headers.get('x-unreadable-runs')?.split(',')).toContain(encodeURIComponent(run.workflowId));
        const list = await call(fresh.url, '/', { token: ALICE_TOKEN, accept: 'text/html' });
        expect(list.text).toMatch(/waiting runs? could not be read/);
      } finally {
        await fresh.close();
      }
      const started = Date.now();
      const page = await call(inbox.url, `/runs/${run.workflowId}`, { token: ALICE_TOKEN, accept: 'text/html' });
      expect(page.text).toContain('could not be read: no worker answered within 5 s');
      expect(Date.now() - started).toBeLessThan(15_000); // before: about 30 s, then "Nothing is waiting"
    });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    expect((await run.result()).finalAnswer).toBe('deleted r-gone');
  }, 90_000);
});

describe('the inbox refuses anonymous and forged requests', () => {
  it('no token, a wrong token or a bad cookie is refused; pages send people to sign in', async () => {
    const base = inbox.url;
    expect((await call(base, '/', { accept: 'text/html' })).status).toBe(303);
    expect((await call(base, '/', { accept: 'text/html' })).headers.get('location')).toBe('/login?next=%2F');
    expect((await call(base, '/api/pending')).status).toBe(401);
    expect((await call(base, '/api/pending', { token: 'not-a-token-of-anyone' })).status).toBe(401);
    expect((await call(base, '/api/pending', { cookie: 'dra_inbox=guess' })).status).toBe(401);
    const post = await call(base, '/runs/any/decide', { body: { callId: 'c1-1', decision: 'approve' } });
    expect(post.status).toBe(401);
    const wrongLogin = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=guess',
      redirect: 'manual',
    });
    expect(wrongLogin.status).toBe(401);
    expect(wrongLogin.headers.get('set-cookie')).toBeNull();
  });

  it('a call ID carrying a newline cannot forge a log line, and is answered as no such call (N25)', async () => {
    const run = await harness.start(deleteTurns('log1'));
    await waitForPending(harness, run.workflowId);
    const forged = `zz\nalice decide ${run.workflowId}: applied (approve c1-1: sent as alice)`;
    const response = await call(inbox.url, `/runs/${run.workflowId}/decide`, {
      token: BOB_TOKEN,
      body: { callId: forged, decision: 'approve' },
    });
    expect(response.json()).toMatchObject({ status: 'stale' });
    expect(JSON.stringify(response.json())).toContain('Nothing of that ID is waiting');
    expect(logged.filter((line) => line.startsWith('alice'))).toEqual([]);
    expect(logged.some((line) => line.startsWith('bob decide') && line.includes('zz\\nalice'))).toBe(true);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    await run.result();
  });

  it('after signing in, goes back only to a path of its own (N22)', async () => {
    const signInTo = async (next: string) =>
      (
        await fetch(`${inbox.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: ALICE_TOKEN, next }).toString(),
          redirect: 'manual',
        })
      ).headers.get('location');
    // Browsers read a backslash or a tab after the slash as `//`: another origin.
    for (const next of [
      '/\\127.0.0.1:18499/after-login',
      '/\t/evil.example/',
      '//evil.example/',
      'https://evil.example/',
    ]) {
      expect(await signInTo(next)).toBe('/');
    }
    expect(await signInTo('/runs/some-run')).toBe('/runs/some-run');
  });

  it('a session post without its CSRF token (or from another origin) is refused; with it, the decision is recorded as the person', async () => {
    const run = await harness.start(deleteTurns('r1'));
    await waitForPending(harness, run.workflowId);
    const { cookie, csrf } = await signIn(inbox.url, ALICE_TOKEN);
    expect(csrf).not.toBe('');
    const path = `/runs/${run.workflowId}/decide`;
    const body = { callId: 'c1-1', decision: 'approve' };
    expect((await call(inbox.url, path, { cookie, body })).status).toBe(403);
    expect((await call(inbox.url, path, { cookie, body, csrf: 'forged' })).status).toBe(403);
    expect((await call(inbox.url, path, { cookie, body, csrf, origin: 'http://evil.example' })).status).toBe(403);
    // Nothing was decided by the refused posts.
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals).toHaveLength(1);

    const applied = await call(inbox.url, path, { cookie, body, csrf });
    expect(applied.status).toBe(200);
    expect(applied.json()).toMatchObject({ status: 'applied' });
    const result = await run.result();
    const by = { identity: 'alice', channel: 'inbox', roles: ['finance'] };
    expect(result.trace.steps[0]?.decision).toEqual({ kind: 'approve', by });
    // The history is the audit trail: the update's payload names alice and the inbox.
    expect(await recordedDecisions(harness.client, run.workflowId)).toEqual([
      {
        update: 'decide',
        identity: 'alice',
        roles: ['finance'],
        channel: 'inbox',
        callId: 'c1-1',
        decision: 'approve',
        always: false,
      },
    ]);
  });
});

describe('deciding through the inbox', () => {
  it('approvers refuse someone else; a second decision is reported as stale, not as an error', async () => {
    const run = await harness.start(deleteTurns('r2'), 'q', {
      approvals: { approvers: { delete_record: ['role:finance'] } },
    });
    await waitForPending(harness, run.workflowId);
    const path = `/runs/${run.workflowId}/decide`;
    // The list spans every run on the server (other test files' too), and visibility lags: wait for this run's item.
    type Listed = { workflowId: string; approvers?: string[]; parameters?: unknown };
    const mine = async () =>
      ((await call(inbox.url, '/api/pending', { token: BOB_TOKEN }).then((r) => r.json())) as Listed[]).find(
        (listed) => listed.workflowId === run.workflowId,
      );
    await expect.poll(mine, { timeout: 10_000 }).toBeDefined();
    const item = await mine();
    expect(item).toMatchObject({ workflowId: run.workflowId, approvers: ['role:finance'] });
    expect(item?.parameters).toMatchObject({ type: 'object', properties: { id: { type: 'string' } } });

    const bob = await call(inbox.url, path, { token: BOB_TOKEN, body: { callId: 'c1-1', decision: 'approve' } });
    expect(bob.status).toBe(403);
    expect(bob.json()).toMatchObject({ status: 'refused', reason: 'not_allowed' });
    const alice = await call(inbox.url, path, { token: ALICE_TOKEN, body: { callId: 'c1-1', decision: 'approve' } });
    expect(alice.status).toBe(200);
    const again = await call(inbox.url, path, {
      token: BOB_TOKEN,
      body: { callId: 'c1-1', decision: 'reject', reason: 'no' },
    });
    expect(again.status).toBe(409);
    // Stale either way: the run is still finishing (already decided) or, on a loaded machine, has finished already.
    const stale = again.json() as { status: string; reason: string };
    expect(stale.status).toBe('stale');
    expect(['already_decided', 'not_found']).toContain(stale.reason);
    expect((await run.result()).finalAnswer).toBe('deleted r2');
  });

  it("an invalid edit is refused with the tool schema's reason and the call stays pending; a question is answered as the person", async () => {
    const run = await harness.start([
      {
        thought: 'The user must tell me which record they mean.',
        toolCalls: [{ name: 'request_clarification', args: { question: 'Which record?' } }],
      },
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'wrong' } }] },
      { answer: 'done' },
    ]);
    await waitForPending(harness, run.workflowId, { approvals: 0, question: true });
    const answered = await call(inbox.url, `/runs/${run.workflowId}/answer`, {
      token: BOB_TOKEN,
      body: { answer: 'r3' },
    });
    expect(answered.json()).toMatchObject({ status: 'applied', message: 'Answered "Which record?" as bob' });
    await waitForPending(harness, run.workflowId);
    const path = `/runs/${run.workflowId}/decide`;
    const bad = await call(inbox.url, path, {
      token: BOB_TOKEN,
      body: { callId: 'c2-1', decision: 'edit', args: { id: 3 } },
    });
    expect(bad.status).toBe(422);
    expect(bad.json()).toMatchObject({ status: 'refused', reason: 'invalid_edit' });
    expect((await harness.agents.handle(run.workflowId).getPending()).approvals).toHaveLength(1);
    const good = await call(inbox.url, path, {
      token: BOB_TOKEN,
      body: { callId: 'c2-1', decision: 'edit', args: { id: 'r3' } },
    });
    expect(good.status).toBe(200);
    const result = await run.result();
    expect(result.trace.steps[0]?.answeredBy).toEqual({ identity: 'bob', channel: 'inbox' });
    expect(result.trace.steps[1]).toMatchObject({
      observation: 'deleted r3',
      decision: { kind: 'edit', by: { identity: 'bob' } },
    });
  });

  it('approve always lets later calls of the tool through; respond answers as the tool without running it', async () => {
    const run = await harness.start([
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'r5' } }] },
      { thought, toolCalls: [{ name: 'delete_record', args: { id: 'r6' } }] },
      { thought, toolCalls: [{ name: 'transfer', args: { amount: 500, to: 'bob' } }] },
      { answer: 'done' },
    ]);
    await waitForPending(harness, run.workflowId);
    const path = `/runs/${run.workflowId}/decide`;
    const always = await call(inbox.url, path, {
      token: ALICE_TOKEN,
      body: { callId: 'c1-1', decision: 'approve_always' },
    });
    const outcome = always.json() as { status: string; message: string };
    expect(outcome.status).toBe('applied');
    expect(outcome.message).toContain('every later call');
    await waitForPending(harness, run.workflowId, { callId: 'c3-1' });
    const responded = await call(inbox.url, path, {
      token: ALICE_TOKEN,
      body: { callId: 'c3-1', decision: 'respond', observation: 'Transfers are frozen today.' },
    });
    expect(responded.status).toBe(200);
    const steps = (await run.result()).trace.steps;
    expect(steps.map((step) => step.observation)).toEqual([
      'deleted r5',
      'deleted r6',
      'Transfers are frozen today.',
      null,
    ]);
    expect(steps[1]?.decision).toBeUndefined(); // approved always: it never waited
    expect(steps[2]?.decision).toMatchObject({ kind: 'respond', by: { identity: 'alice', channel: 'inbox' } });
  });
});
