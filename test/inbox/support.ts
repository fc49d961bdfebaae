import type { Client } from '@temporalio/client';
import { decodePayload } from '../../src/client/payloads';

/** Tokens of the people the inbox tests sign in as. */
export const ALICE_TOKEN = 'alice-token-0123456789abcdef';
export const BOB_TOKEN = 'bob-token-0123456789abcdef';
export const PEOPLE = {
  [ALICE_TOKEN]: { name: 'alice', roles: ['finance'] },
  [BOB_TOKEN]: { name: 'bob', roles: [] },
};

/**
 * The decide/answer payloads the server recorded in the run's history, decoded with the client's own converter (so it
 * also reads encrypted histories): the audit trail a person would read.
 */
export async function recordedDecisions(client: Client, workflowId: string): Promise<Record<string, unknown>[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const found: Record<string, unknown>[] = [];
  for (const event of history.events ?? []) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest;
    const name = accepted?.input?.name;
    const payload = accepted?.input?.args?.payloads?.[0];
    if (!payload || (name !== 'decide' && name !== 'answer')) continue;
    found.push({ update: name, ...(await decodePayload<Record<string, unknown>>(client, payload)) });
  }
  return found;
}

/** A fetch against the inbox with optional bearer token, cookie, CSRF token and Origin. */
export async function call(
  base: string,
  path: string,
  options: {
    method?: string;
    token?: string;
    cookie?: string;
    csrf?: string;
    origin?: string;
    body?: Record<string, unknown>;
    accept?: string;
  } = {},
): Promise<{ status: number; text: string; json: () => unknown; headers: Headers }> {
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  if (options.origin) headers.origin = options.origin;
  if (options.body) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method: options.method ?? (options.body ? 'POST' : 'GET'),
    headers,
    redirect: 'manual',
    ...(options.body ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as unknown, headers: response.headers };
}

/** Signs in with a token like the login form does; returns the session cookie and the page's CSRF token. */
export async function signIn(base: string, token: string): Promise<{ cookie: string; csrf: string }> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, next: '/' }),
    redirect: 'manual',
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${base}/`, { headers: { cookie } })).text();
  const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? '';
  return { cookie, csrf };
}
