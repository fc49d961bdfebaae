import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInbox, type Inbox } from '../../src/inbox';
import { useHarness } from '../support/harness';
import { ALICE_TOKEN, PEOPLE } from './support';

const harness = useHarness();
let server: Inbox;

beforeAll(async () => {
  server = await startInbox({ client: harness.client, identities: { tokens: PEOPLE } });
});
afterAll(async () => {
  await server?.close();
});

interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

/**
 * A plain HTTP client reading Server-Sent Events (no Temporal client, no EventSource library): returns the messages
 * up to `stop` (then hangs up, as a browser tab that closes) or the end of the response.
 */
function readSse(path: string, headers: Record<string, string>, stop: (message: SseMessage) => boolean) {
  return new Promise<{ status: number; contentType?: string; cors?: string; messages: SseMessage[] }>(
    (resolve, reject) => {
      const url = new URL(path, server.url);
      const req = request(url, { headers: { authorization: `Bearer ${ALICE_TOKEN}`, ...headers } }, (response) => {
        const messages: SseMessage[] = [];
        let buffer = '';
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers['content-type'],
            cors: response.headers['access-control-allow-origin'],
            messages,
          });
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const message: SseMessage = { data: '' };
            for (const line of block.split('\n')) {
              if (line.startsWith(':')) continue; // a keep-alive comment
              const [field, ...rest] = line.split(': ');
              const value = rest.join(': ');
              if (field === 'id') message.id = value;
              else if (field === 'event') message.event = value;
              else if (field === 'data') message.data = value;
            }
            if (message.event === undefined && message.data === '') continue;
            messages.push(message);
            if (stop(message)) {
              req.destroy();
              return done();
            }
          }
        });
        response.on('end', done);
      });
      req.on('error', reject);
      req.end();
    },
  );
}

describe("the inbox's Server-Sent Events of a run", () => {
  it('streams a run to a plain HTTP client, which resumes with Last-Event-ID after hanging up', async () => {
    const run = await harness.start(
      [
        {
          thought: 'The stale record has to go, and deleting needs a person.',
          toolCalls: [{ name: 'delete_record', args: { id: 'r9' } }],
        },
        { answer: 'Deleted r9.' },
      ],
      'clean up',
    );
    const path = `/runs/${encodeURIComponent(run.workflowId)}/events`;
    const first = await readSse(path, {}, (message) => message.event === 'approval_pending');
    expect(first.status).toBe(200);
    expect(first.contentType).toBe('text/event-stream');
    expect(first.messages.map((message) => message.event)).toEqual([
      'run_started',
      'thought',
      'tool_call_requested',
      'approval_pending',
    ]);
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const lastId = first.messages.at(-1)!.id!;
    const rest = await readSse(path, { 'Last-Event-ID': lastId }, () => false);
    expect(rest.messages.map((message) => message.event)).toEqual([
      'approval_decided',
      'tool_started',
      'tool_finished',
      'final_answer',
      'terminated',
      'end',
    ]);
    const ids = [...first.messages, ...rest.messages].flatMap((message) => (message.id ? [Number(message.id)] : []));
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(JSON.parse(rest.messages[2]!.data)).toMatchObject({ seq: 7, observation: 'deleted r9' });
  });

  it('refuses anyone who has not signed in (red team N17: the events server had no authentication)', async () => {
    const run = await harness.start([{ answer: 'Done.' }], 'a private query');
    await run.result();
    const path = `/runs/${encodeURIComponent(run.workflowId)}/events`;
    const anonymous = await readSse(path, { authorization: '' }, () => false);
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(anonymous.messages)).not.toContain('a private query');
  });

  it('answers an unknown run with 404 and a bad cursor with 400, each with a one-line reason', async () => {
    const missing = await readSse('/runs/no-such-run/events', {}, () => false);
    expect(missing.status).toBe(404);
    const run = await harness.start([{ answer: 'Done.' }], 'q');
    await run.result();
    const bad = await readSse(`/runs/${run.workflowId}/events?after=soon`, {}, () => false);
    expect(bad.status).toBe(400);
  });
  it("a finished run's live trace shows its steps and end once its worker is gone (issue 35, item 7)", async () => {
    const run = await harness.start([{ answer: 'All clean.' }], 'clean up');
    await run.result();
    // As after `run` exited: nobody polls the run's task queue, so its events query finds no worker.
    await harness.restartWorker(async () => {
      const started = Date.now();
      const trace = await readSse(`/runs/${encodeURIComponent(run.workflowId)}/trace/stream`, {}, () => false);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(trace.messages.at(-1)?.event).toBe('end');
      expect(trace.messages.some((message) => message.data.includes('Final answer: All clean.'))).toBe(true);
    });
  }, 60_000);

  it("a finished run's trace comes from its history at once while its worker is gone (first hour, stumble 6)", async () => {
    const run = await harness.start([{ answer: 'All clean.' }], 'clean up');
    await run.result();
    await harness.restartWorker(async () => {
      const path = `/runs/${encodeURIComponent(run.workflowId)}/trace/stream`;
      const trace = await readSse(path, {}, (message) => message.data.includes('Final answer: All clean.'));
      // The history's lines come first, ahead of the events query that waits seconds for a worker: a `reset`, then
      // the trace up to its answer, with no event the query's path sends (an `end` or an `error`) before it.
      expect(trace.messages[0]?.event).toBe('reset');
      expect(trace.messages.slice(1).map((message) => message.event)).toEqual(
        trace.messages.slice(1).map(() => 'trace'),
      );
      expect(trace.messages.at(-1)?.data).toContain('Final answer: All clean.');
    });
  }, 60_000);
});
