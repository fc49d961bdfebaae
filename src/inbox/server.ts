import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Client, WorkflowExecutionDescription } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { listPending, type PendingCache } from '../client/decisions';
import { cursorOf, streamRunEvents } from './event-stream';
import { allowedHosts, listen } from '../common/http-listen';
import { Authenticator, bearerTokenOf, type Authenticated, type IdentitySource } from './auth';
import { INBOX_SCRIPT, INBOX_STYLE } from './browser-assets';
import type { DecisionSigner } from '../common/decision-signing';
import { answerAs, BadRequest, budgetAs, decideAs, httpStatus, readBody, type DecisionOutcome } from './decide';
import { loginPage, outcomePage } from './html';
import { PendingFeed, questionsOf } from './live';
import { inboxPage, runPage, streamInbox, streamRunPending, streamTrace } from './pages';
import { visible } from '../common/terminal-text';
import { errorMessage } from '../shared/errors';

/** Options of {@link startInbox}. */
export interface InboxOptions {
  /** A client whose data converter matches the workers' (payload encryption included). */
  client: Client;
  identities: IdentitySource;
  /** Loopback unless set: the inbox decides on people's behalf, so exposing it is a deliberate choice. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /**
   * The address people open the inbox at when it is not this machine's loopback (behind a proxy, on another host):
   * requests naming any other Host are refused, which is what stops a DNS-rebinding page.
   */
  publicUrl?: string;
  /** How often the list of waiting items is polled while someone watches it (default 1 s). */
  pollMs?: number;
  log?: (line: string) => void;
  /**
   * Signs each decision in the name of the person signed in (`approvals.requireSigned`); the worker's key set must list
   * them among the key's `approvers`. The CLI's inbox reads it from AGENT_SIGNING_KEY_ID and AGENT_SIGNING_KEY_FILE.
   */
  signer?: DecisionSigner;
}

/** A running inbox. */
export interface Inbox {
  url: string;
  close(): Promise<void>;
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
/** Only the inbox's own inline script and style may run; nothing may frame it (a hidden approve button). */
const SECURITY_HEADERS = {
  'content-security-policy': `default-src 'none'; script-src ${sha256(INBOX_SCRIPT)}; style-src ${sha256(INBOX_STYLE)}; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not `no-referrer`: with it Chromium sends `Origin: null` on form posts, which the origin check must refuse.
  'referrer-policy': 'same-origin',
};

function sendHtml(response: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...SECURITY_HEADERS, ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body));
}

function wantsJson(request: IncomingMessage): boolean {
  return (request.headers.accept ?? '').includes('application/json') || request.headers.authorization !== undefined;
}

/**
 * A same-site path to go back to after signing in; anything else goes to the list. Browsers read `/\host` and
 * `/<tab>/host` as `//host` (another origin), so a backslash or a control character anywhere refuses the path.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//')) return '/';
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  return /[\\\u0000-\u001f\u007f]/.test(next) ? '/' : next;
}

/** A post from a page of another origin is refused whatever it carries (browsers send Origin on posts). */
function crossOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined || origin === 'null') return origin === 'null';
  try {
    return new URL(origin).host !== request.headers.host;
  } catch {
    return true;
  }
}

/** The workflow ID in a run path; a malformed `%` escape is the client's mistake (400), not the server's. */
function workflowIdOf(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(
      `"${visible(segment)}" is not a valid workflow ID in a path: a % must start an escape like %20`,
    );
  }
}

/**
 * Whether the browser reached the inbox over HTTPS: through an https public URL's proxy (its Host). Signing in on
 * the loopback address of the same inbox is plain HTTP, where a `Secure` cookie would be dropped.
 */
function overHttps(options: InboxOptions, request: IncomingMessage): boolean {
  if (!options.publicUrl?.startsWith('https:')) return false;
  return (request.headers.host ?? '').toLowerCase() === new URL(options.publicUrl).host.toLowerCase();
}

const RUN_ROUTE = /^\/runs\/([^/]+)(\/pending\/stream|\/trace\/stream|\/events|\/decide|\/answer|\/budget)?$/;

/** Routes one request; errors become a 502 with one line (the server keeps serving). */
async function route(
  options: InboxOptions,
  auth: Authenticator,
  feed: PendingFeed,
  hosts: Set<string>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://inbox');
  const method = request.method ?? 'GET';
  const host = (request.headers.host ?? '').toLowerCase();
  if (!hosts.has(host)) {
    return sendJson(response, 421, {
      error: `this inbox does not answer to Host "${visible(host)}": open it at ${[...hosts].join(' or ')}, or start it with --public-url`,
    });
  }
  // Only wrong tokens are refused after too many of them: a right token, a signed-in session or a proxy's user goes
  // on working, so guessing from a shared address (loopback, a proxy) cannot lock everyone out.
  const address = request.socket.remoteAddress ?? 'unknown';
  const tooManyWrongTokens = () =>
    sendJson(response, 429, { error: 'too many wrong tokens from this address: wait a minute' });
  const bearer = bearerTokenOf(request);
  if (bearer !== undefined && auth.refused(address, bearer)) return tooManyWrongTokens();
  if (url.pathname === '/login' && method === 'GET')
    return sendHtml(response, 200, loginPage(null, safeNext(url.searchParams.get('next'))));
  if (url.pathname === '/login' && method === 'POST') {
    if (crossOrigin(request)) return sendJson(response, 403, { error: 'cross-origin sign-in refused' });
    const body = await readBody(request);
    const token = typeof body.token === 'string' ? body.token.trim() : '';
    if (auth.refused(address, token)) return tooManyWrongTokens();
    const user = auth.userOfToken(token);
    if (!user) {
      auth.noteFailure(address);
      return sendHtml(response, 401, loginPage('That token is not valid.', safeNext(body.next)));
    }
    const secure = overHttps(options, request);
    response.writeHead(303, { location: safeNext(body.next), 'set-cookie': auth.startSession(user, secure) }).end();
    return;
  }

  const who = auth.authenticate(request);
  if (!who) {
    // Streams (SSE) answer 401: a redirect to a sign-in page is no event stream.
    if (method === 'GET' && !wantsJson(request) && !/\/(stream|events)$/.test(url.pathname)) {
      response.writeHead(303, { location: `/login?next=${encodeURIComponent(url.pathname + url.search)}` }).end();
      return;
    }
    return sendJson(response, 401, { error: 'sign in first: a bearer token or the inbox session cookie is required' });
  }
  if (method === 'POST') {
    const body = await readBody(request);
    const sent = request.headers['x-csrf-token'] ?? body.csrf;
    if (crossOrigin(request) || !auth.checkCsrf(who, typeof sent === 'string' ? sent : undefined)) {
      return sendJson(response, 403, { error: 'missing or wrong CSRF token: reload the page and try again' });
    }
    return post(options, auth, feed, who, url, body, request, response);
  }
  if (method !== 'GET') return sendJson(response, 405, { error: `${method} is not served` });
  if (url.pathname === '/') return sendHtml(response, 200, await inboxPage(who, feed, url));
  if (url.pathname === '/inbox/stream') return streamInbox(response, feed, url);
  if (url.pathname === '/api/pending') {
    const { items, unreadable } = await feed.current();
    // The array as before; runs that could not be read are named in a header rather than silently left out.
    response.setHeader('x-unreadable-runs', unreadable.map(encodeURIComponent).join(','));
    return sendJson(response, 200, items);
  }
  const match = RUN_ROUTE.exec(url.pathname);
  if (!match) return sendJson(response, 404, { error: `nothing at ${url.pathname}` });
  const workflowId = workflowIdOf(match[1]!);
  let description: WorkflowExecutionDescription;
  try {
    description = await options.client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return sendJson(response, 404, { error: `no run "${workflowId}"` });
    throw error;
  }
  switch (match[2]) {
    case undefined:
      return sendHtml(response, 200, await runPage(who, options.client, description));
    case '/pending/stream':
      return streamRunPending(response, options.client, who, workflowId, options.pollMs);
    case '/trace/stream':
    case '/events': {
      const after = cursorOf(request, url);
      if (typeof after === 'string') return sendJson(response, 400, { error: after });
      if (match[2] === '/events') return streamRunEvents(options.client, workflowId, after, response);
      return streamTrace(response, options.client, workflowId, after);
    }
    default:
      return sendJson(response, 405, { error: 'use POST' });
  }
}

async function post(
  options: InboxOptions,
  auth: Authenticator,
  feed: PendingFeed,
  who: Authenticated,
  url: URL,
  body: Record<string, unknown>,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  if (url.pathname === '/logout') {
    const cleared = auth.endSession(request, overHttps(options, request));
    response.writeHead(303, { location: '/login', 'set-cookie': cleared }).end();
    return;
  }
  const match = RUN_ROUTE.exec(url.pathname);
  const action = match?.[2];
  const act =
    action === '/decide' ? decideAs : action === '/answer' ? answerAs : action === '/budget' ? budgetAs : null;
  if (!match || !act || !action) return sendJson(response, 404, { error: `nothing to post to at ${url.pathname}` });
  const workflowId = workflowIdOf(match[1]!);
  const outcome: DecisionOutcome = await act(options.client, who.user, workflowId, body, options.signer);
  feed.nudge(); // the lists should show it soon, whatever the listing's pace
  // Every part but the action came from the request: escaped, a newline in a call ID cannot forge a line of the log.
  options.log?.(
    visible(`${who.user.name} ${action.slice(1)} ${workflowId}: ${outcome.status} (${outcome.message})`).replace(
      /\n/g,
      '\\n',
    ),
  );
  if (wantsJson(request)) return sendJson(response, httpStatus(outcome), outcome);
  return sendHtml(
    response,
    httpStatus(outcome),
    outcomePage(who.user.name, who.csrf, outcome.message, `/runs/${encodeURIComponent(workflowId)}`),
  );
}

/**
 * Starts the approval inbox: a web app listing everything waiting for a person across runs, with run pages that
 * stream their trace and decide pending calls as the signed-in person (channel `inbox`).
 */
export async function startInbox(options: InboxOptions): Promise<Inbox> {
  const auth = new Authenticator(options.identities, options.log);
  // Filled once the port is known (0 picks one); nothing is served before.
  const hosts = new Set<string>();
  const pendingCache: PendingCache = new Map();
  const questions = new Map<string, string>();
  const feed = new PendingFeed(
    async () => {
      const unreadable: string[] = [];
      const items = await listPending(options.client, {
        cache: pendingCache,
        onUnreadable: (workflowId) => unreadable.push(workflowId),
      });
      return { items, unreadable, questions: await questionsOf(options.client, items, questions) };
    },
    options.pollMs ?? 1000,
    (error) => options.log?.(`listing pending items failed: ${errorMessage(error)}`),
  );
  const server: Server = createServer((request, response) => {
    route(options, auth, feed, hosts, request, response).catch((error: unknown) => {
      const message = errorMessage(error);
      if (response.headersSent) return void response.end();
      sendJson(response, error instanceof BadRequest ? 400 : 502, { error: message });
    });
  });
  const host = options.host ?? '127.0.0.1';
  const inbox = await listen(server, host, options.port ?? 0, () => feed.stop());
  for (const allowed of allowedHosts(host, Number(new URL(inbox.url).port), options.publicUrl)) hosts.add(allowed);
  return inbox;
}
