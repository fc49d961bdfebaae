import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as forward, type Server } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { defaultPayloadConverter } from '@temporalio/common';
import { freePort } from '../../src/testing/free-port';
import type { ToolObservation } from '../../src/shared/tool-protocol';
import { firstEvent } from '../support/run-events';
import { useHarness, waitForPending } from '../support/harness';

/**
 * The reference MCP server again, over streamable HTTP: there the server's requests back (sampling, elicitation)
 * travel on the tool call's own response stream, not on a shared pipe as over stdio.
 */
const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// Its URL is known once the server has a port; the harness reads the config when it starts, after this hook.
const everything = { url: '', sampling: true, elicitation: true };
let server: ReturnType<typeof spawn> | undefined;
/** A proxy before the server, noting each request's session and protocol version headers. */
let proxy: Server | undefined;
const seen: Array<{ session?: string; version?: string }> = [];
beforeAll(async () => {
  const port = await freePort();
  const proxyPort = await freePort();
  everything.url = `http://127.0.0.1:${proxyPort}/mcp`;
  proxy = createServer((incoming, outgoing) => {
    const header = (name: string) => incoming.headers[name] as string | undefined;
    seen.push({ session: header('mcp-session-id'), version: header('mcp-protocol-version') });
    const onward = forward(
      { host: '127.0.0.1', port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    onward.on('error', () => outgoing.destroy());
    incoming.pipe(onward);
  });
  proxy.listen(proxyPort, '127.0.0.1');
  await once(proxy, 'listening');
  server = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  while (!said.includes('listening on port')) {
    const [chunk] = (await once(server.stderr!, 'data')) as [Buffer];
    said += chunk.toString();
  }
});
afterAll(async () => {
  proxy?.closeAllConnections();
  proxy?.close();
  if (server && server.exitCode === null) {
    const exited = once(server, 'exit');
    server.kill();
    await exited;
  }
});
const harness = useHarness({ mcpServers: { everything } });

const thought = 'The MCP server has a tool for exactly this, so I call it.';

describe('against the reference MCP server over streamable HTTP', () => {
  it("answers its sampling request with the run's model, and its form with a person's answer", async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__trigger-sampling-request', args: { prompt: 'one word', maxTokens: 10 } }],
        },
        { answer: 'Durable.' }, // the run's model, for the server
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request', args: {} }] },
        { answer: 'Both done.' },
      ],
      'Let the server sample, then fill in its form.',
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    expect(question?.question).toMatch(/^everything \(a call of everything__trigger-elicitation-request\) asks: /);
    await run.answer(JSON.stringify({ name: 'Grace Hopper' }), question?.callId);
    const result = await run.result();
    expect(result.finalAnswer).toBe('Both done.');
    expect(result.trace.steps.slice(0, 2).map((step) => step.isError)).toEqual([false, false]);
    expect(result.trace.steps[0]?.observation).toContain('Durable.');
    expect(result.trace.steps[1]?.observation).toContain('- Name: Grace Hopper');
  });

  it("serves the requests it polls as tasks of the client's (the async tools), keeping each call going", async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__trigger-sampling-request-async', args: { prompt: 'one word' } }],
        },
        { answer: 'Durable.', delayMs: 1_500 }, // the run's model, for the server, taking its time
        { thought, toolCalls: [{ name: 'everything__trigger-elicitation-request-async', args: {} }] },
        { answer: 'Both done.' },
      ],
      'Let the server sample, then fill in its form, each as a task.',
    );
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // the server polls meanwhile
    await run.answer(JSON.stringify({ name: 'Grace Hopper' }), question?.callId);
    const result = await run.result();
    expect(result.trace.steps.slice(0, 2).map((step) => step.isError)).toEqual([false, false]);
    expect(result.trace.steps[0]?.observation).toMatch(/Poll 1: working\n(.|\n)*completed(.|\n)*Durable\./);
    expect(result.trace.steps[1]?.observation).toMatch(/- Name: Grace Hopper(.|\n)*Poll 1: input_required\n/);
  });

  it('a task outlives the worker that started it: a new worker reattaches to its HTTP session', async () => {
    const run = await harness.start(
      [
        {
          thought,
          toolCalls: [{ name: 'everything__simulate-research-query', args: { topic: 'python', ambiguous: true } }],
        },
        { answer: 'Researched.' },
      ],
      'Research python.',
    );
    await firstEvent(run, 'tool_progress');
    // The worker that started the task is gone; the server keeps the task with its session, which the next one joins.
    const before = seen.length;
    await harness.restartWorker();
    const { question } = await waitForPending(harness, run.workflowId, { question: true });
    await run.answer(JSON.stringify({ interpretation: 'comedy' }), question?.callId);
    const result = await run.result();
    expect(result.trace.steps[0]?.isError).toBe(false);
    expect(result.trace.steps[0]?.observation).toContain('# Research Report: python (comedy)');
    // Every request in a session names the protocol version, the reattached client's too (it had no handshake).
    const inSessions = seen.slice(before).filter((request) => request.session !== undefined);
    expect(inSessions.length).toBeGreaterThan(0);
    expect(inSessions.filter((request) => request.version === undefined)).toEqual([]);
  });

  it('a run cancelled while a task runs cancels the task on its server', async () => {
    const research = { name: 'everything__simulate-research-query', args: { topic: 'cancelling' } };
    const run = await harness.start([{ thought, toolCalls: [research] }, { answer: 'never' }], 'Research.');
    let task: { id: string; session?: string } | undefined;
    await firstEvent(run, 'tool_progress');
    await run.cancel();
    expect((await run.result()).terminationReason).toBe('cancelled');
    // The task and its session, as the run recorded them, are asked of the server by a client of the test's own.
    const history = await harness.client.workflow.getHandle(run.workflowId).fetchHistory();
    for (const event of history.events ?? []) {
      const payload = event.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
      const needs = payload ? defaultPayloadConverter.fromPayload<ToolObservation>(payload).needs : undefined;
      if (needs?.kind === 'task') task = needs.task;
    }
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(everything.url), { sessionId: task?.session }));
    const seen = await client.experimental.tasks.getTask(task?.id ?? '');
    expect(seen.status).toBe('cancelled');
    await client.close();
  });
});
