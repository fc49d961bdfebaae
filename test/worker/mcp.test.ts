import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOfType } from '../support/run-events';
import { createHarness, waitForPending, type Harness } from '../support/harness';
import { startHttpMcpServer } from '../support/mcp/http-server';
import { seenKeys } from '../support/mcp/test-server';

const STDIO_SERVER = path.resolve(__dirname, '../support/mcp/stdio-server.ts');
/** Where the stdio server notes the calls whose cancellation it received. */
const CANCEL_FILE = path.join(mkdtempSync(path.join(os.tmpdir(), 'dra-mcp-')), 'cancelled');
const thought = 'The customer record is the source of truth, so I look it up.';
let harness: Harness;
let http: Awaited<ReturnType<typeof startHttpMcpServer>>;

beforeAll(async () => {
  http = await startHttpMcpServer();
  harness = await createHarness({
    mcpServers: {
      // A real server process the worker starts over stdio, and one over streamable HTTP: both have `lookup`.
      local: {
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_SERVER],
        // Per-tool settings: a shorter timeout, and a destructive tool this worker lets run without asking.
        tools: { slow: { timeout: '1s' }, create_ticket: { confirm: 'never' } },
      },
      remote: { url: http.url, deny: ['crash'] },
      // The same stdio server again, with default timeouts, noting the cancellations it receives.
      spare: {
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_SERVER],
        env: { MCP_TEST_CANCEL_FILE: CANCEL_FILE },
        allow: ['slow'],
      },
    },
  });
}, 60_000);
afterAll(async () => {
  await harness?.close();
  await http?.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => ({ thought, toolCalls: [{ name, args }] });

describe('MCP servers’ tools', () => {
  it('are discovered with their schemas, namespaced per server, and run as activities', async () => {
    const run = await harness.start(
      [
        call('local__lookup', { id: 'c7' }),
        call('remote__lookup', { id: 'c8' }),
        call('local__create_ticket', { title: 'Hi', priority: 1 }),
        { answer: 'found both' },
      ],
      'q',
      { tools: ['local__lookup', 'remote__lookup', 'local__create_ticket'] },
    );
    const result = await run.result();
    expect(result.trace.steps.map((step) => step.observation)).toEqual([
      'customer c7 (from stdio)',
      'customer c8 (from http)',
      '{"id":"T-2","title":"Hi"}',
      null,
    ]);
    expect(result.trace.steps[2]?.decision).toBeUndefined(); // the config waived the destructive annotation
    // The model was offered both, each with the server's own JSON Schema.
    const offered = harness.model.requests(run.modelName)[0]?.tools?.map((tool) => tool.function);
    expect(offered?.find((tool) => tool.name === 'local__lookup')?.parameters).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    expect(offered?.map((tool) => tool.name)).toEqual(expect.arrayContaining(['local__lookup', 'remote__lookup']));
  });

  it("a server's log line during a call is a progress line of that call in the run's events", async () => {
    const run = await harness.start([call('local__narrate', {}), { answer: 'told' }], 'q', {
      tools: ['local__narrate'],
    });
    await run.result();
    const progress = await eventsOfType(run, 'tool_progress');
    expect(progress).toEqual([
      expect.objectContaining({ tool: 'local__narrate', status: 'working', message: 'info: reading the ledger' }),
    ]);
  });

  it('a denied tool is not offered: a run that asks for it is refused at its start', async () => {
    const run = await harness.start([{ answer: 'unused' }], 'q', { tools: ['remote__crash'] });
    await expect(run.result()).rejects.toThrow('Unknown tools in config.tools: remote__crash');
  });

  it('a destructive tool waits for approval, then runs once with the idempotency key in _meta; structured content is data', async () => {
    const run = await harness.start([
      call('remote__create_ticket', { title: 'Refund', priority: 2 }),
      { answer: 'opened' },
    ]);
    const pending = await waitForPending(harness, run.workflowId);
    expect(pending.approvals[0]).toMatchObject({
      tool: 'remote__create_ticket',
      parameters: { properties: { priority: { type: 'integer', minimum: 1, maximum: 5 } } },
    });
    await harness.agents.handle(run.workflowId).approve('c1-1');
    const result = await run.result();
    expect(result.trace.steps[0]).toMatchObject({ observationData: { id: 'T-6', title: 'Refund' }, isError: false });
    expect(seenKeys).toContain(`${run.firstRunId}:c1-1`);
  });

  it('bad arguments, tool errors, images, a timeout and a crashed server become observations; the run goes on', async () => {
    const run = await harness.start([
      call('local__lookup', { id: 5 }),
      call('remote__fail'),
      call('remote__chart'),
      call('local__slow', { ms: 5000 }),
      call('local__crash'),
      call('local__lookup', { id: 'c9' }),
      { answer: 'done despite everything' },
    ]);
    const result = await run.result();
    const [bad, failed, chart, slow, crashed, after] = result.trace.steps;
    expect(bad).toMatchObject({ isError: true });
    expect(bad?.observation).toContain('invalid arguments');
    expect(failed).toMatchObject({ isError: true });
    expect(failed?.observation).toContain('the backend is down');
    expect(chart?.observation).toContain('Sales went up.');
    expect(chart?.observation).toContain('[image: image/png, 300 bytes, not shown to the model]');
    expect(slow).toMatchObject({ isError: true });
    expect(slow?.observation).toContain('timed out after 1s'); // the tool's own timeout, not the default 60s
    expect(crashed).toMatchObject({ isError: true });
    expect(crashed?.observation).toContain('Connection closed');
    // The worker started the server again for the next call.
    expect(after).toMatchObject({ observation: 'customer c9 (from stdio)', isError: false });
    expect(result.finalAnswer).toBe('done despite everything');
  }, 60_000);

  it("the run's time budget cancels an MCP call in flight, and the server hears of it", async () => {
    const run = await harness.start([call('spare__slow', { ms: 4000 }), { answer: 'out of time' }], 'q', {
      limits: { timeoutSeconds: 1 },
    });
    const result = await run.result();
    expect(result.terminationReason).toBe('timeout');
    await expect
      .poll(() => (existsSync(CANCEL_FILE) ? readFileSync(CANCEL_FILE, 'utf8') : ''), { timeout: 5000 })
      .toContain('4000\n');
  });
});
