import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Client } from '@temporalio/client';
import { followEvents } from '../client/events';
import { errorMessage } from '../shared/errors';

/** The cursor: `Last-Event-ID` (what a reconnecting EventSource sends) or `?after=`; 0 from the start. */
export function cursorOf(request: IncomingMessage, url: URL): number | string {
  const raw = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? '0';
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return Number.isSafeInteger(value) && value >= 0 ? value : `invalid cursor "${String(raw)}": expected a seq >= 0`;
}

/**
 * Writes a run's events to a response as Server-Sent Events until the run's last event or until the client goes
 * away. Each event's `id:` is its seq, so `Last-Event-ID` resumes after it.
 */
export async function streamRunEvents(
  client: Client,
  workflowId: string,
  after: number,
  response: ServerResponse,
  options: { keepAliveMs?: number | undefined } = {},
): Promise<void> {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
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
    response.write(`event: error\ndata: ${JSON.stringify({ error: errorMessage(error) })}\n\n`);
  } finally {
    clearInterval(keepAlive);
    response.end();
  }
}
