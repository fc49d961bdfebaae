import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { followEvents } from './events';
import { listen } from './http-listen';

/** Options of {@link startEventServer}. */
export interface EventServerOptions {
  client: Client;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Value of Access-Control-Allow-Origin, for pages served elsewhere (default: none, same origin only). */
  origin?: string;
  /** Comment lines sent this often keep proxies from closing an idle stream (default 15 s). */
  keepAliveMs?: number;
}

/** A running event server. */
export interface EventServer {
  url: string;
  close(): Promise<void>;
}

const ROUTE = /^\/runs\/([^/]+)\/events$/;

function fail(response: ServerResponse, status: number, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: message }));
}

/** The cursor: `Last-Event-ID` (what a reconnecting EventSource sends) or `?after=`; 0 from the start. */
export function cursorOf(request: IncomingMessage, url: URL): number | string {
  const raw = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? '0';
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : `invalid cursor "${String(raw)}": expected a seq >= 0`;
}

async function stream(options: EventServerOptions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const match = ROUTE.exec(url.pathname);
  if (request.method !== 'GET' || !match) return fail(response, 404, 'use GET /runs/<workflowId>/events');
  const workflowId = decodeURIComponent(match[1]!);
  const after = cursorOf(request, url);
  if (typeof after === 'string') return fail(response, 400, after);
  try {
    await options.client.workflow.getHandle(workflowId).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return fail(response, 404, `no run with workflow ID "${workflowId}"`);
    throw error;
  }
  await streamRunEvents(options.client, workflowId, after, response, options);
}

/**
 * Writes a run's events to a response as Server-Sent Events until the run's last event or until the client goes away
 * (shared by the event server and the inbox). Each event's `id:` is its seq, so `Last-Event-ID` resumes after it.
 */
export async function streamRunEvents(
  client: Client,
  workflowId: string,
  after: number,
  response: ServerResponse,
  options: { origin?: string | undefined; keepAliveMs?: number | undefined } = {},
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    ...(options.origin ? { 'access-control-allow-origin': options.origin } : {}),
  });
  const controller = new AbortController();
  response.on('close', () => controller.abort());
  const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
  try {
    for await (const event of followEvents(client, workflowId, { after, signal: controller.signal })) {
      response.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    }
    // Tells an EventSource not to reconnect: the run has ended.
    if (!controller.signal.aborted) response.write('event: end\ndata: {}\n\n');
  } catch (error) {
    response.write(
      `event: error\ndata: ${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n\n`,
    );
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}

/**
 * Serves `GET /runs/:workflowId/events` as Server-Sent Events, so a web page follows a run with `EventSource` and no
 * Temporal client. Each event's `id:` is its seq: a reconnecting browser sends `Last-Event-ID` and resumes after it.
 */
export async function startEventServer(options: EventServerOptions): Promise<EventServer> {
  const server: Server = createServer((request, response) => {
    stream(options, request, response).catch((error: unknown) => {
      if (!response.headersSent) fail(response, 502, error instanceof Error ? error.message : String(error));
      else response.end();
    });
  });
  return listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
}
