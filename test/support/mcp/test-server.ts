import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

/** Idempotency keys the server saw in calls' `_meta` (for the HTTP server, which runs in the test process). */
export const seenKeys: string[] = [];
/** Tools the server offers besides its fixed ones; a test adds one to see a worker learn of it at its refresh. */
export const extraTools: string[] = [];
/** `slow` calls whose request the client cancelled, by the `ms` they asked for (in this process). */
export const cancelledCalls: number[] = [];

/**
 * The MCP server the tests talk to, built with the SDK's own server classes: a read-only lookup, a destructive
 * ticket tool with structured output, a slow tool, an image, a tool error, and (over stdio) one that kills its process.
 */
export function createTestMcpServer(label: string): McpServer {
  const server = new McpServer({ name: `test-${label}`, version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool(
    'lookup',
    {
      description: 'Looks up a customer by ID.',
      inputSchema: { id: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ id }) => ({ content: [{ type: 'text', text: `customer ${id} (from ${label})` }] }),
  );
  server.registerTool(
    'create_ticket',
    {
      description: 'Opens a support ticket.',
      inputSchema: { title: z.string(), priority: z.number().int().min(1).max(5) },
      outputSchema: { id: z.string(), title: z.string() },
      annotations: { destructiveHint: true },
    },
    ({ title }, extra) => {
      const key = (extra._meta as { idempotencyKey?: string } | undefined)?.idempotencyKey;
      if (key) seenKeys.push(key);
      const ticket = { id: `T-${title.length}`, title };
      return { content: [{ type: 'text', text: JSON.stringify(ticket) }], structuredContent: ticket };
    },
  );
  server.registerTool(
    'slow',
    { description: 'Takes its time.', inputSchema: { ms: z.number() }, annotations: { readOnlyHint: true } },
    async ({ ms }, extra) => {
      extra.signal.addEventListener('abort', () => {
        cancelledCalls.push(ms);
        // A server in another process reports it where the test can read it.
        if (process.env.MCP_TEST_CANCEL_FILE) appendFileSync(process.env.MCP_TEST_CANCEL_FILE, `${ms}\n`);
      });
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool(
    'chart',
    { description: 'Draws a chart.', inputSchema: {}, annotations: { readOnlyHint: true } },
    () => ({
      content: [
        { type: 'text', text: 'Sales went up.' },
        { type: 'image', data: Buffer.alloc(300).toString('base64'), mimeType: 'image/png' },
      ],
    }),
  );
  server.registerTool(
    'narrate',
    { description: 'Logs what it does while it runs.', inputSchema: {}, annotations: { readOnlyHint: true } },
    async () => {
      await server.sendLoggingMessage({ level: 'info', data: 'reading the ledger' });
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { content: [{ type: 'text', text: 'narrated' }] };
    },
  );
  server.registerTool(
    'fail',
    { description: 'Always reports an error.', inputSchema: {}, annotations: { readOnlyHint: true } },
    () => ({ content: [{ type: 'text', text: 'the backend is down' }], isError: true }),
  );
  server.registerTool(
    'crash',
    { description: 'Kills the server process.', inputSchema: {}, annotations: { readOnlyHint: true } },
    () => {
      setTimeout(() => process.exit(3), 50);
      return new Promise(() => undefined); // never answers: the process dies first
    },
  );
  for (const name of extraTools) {
    server.registerTool(
      name,
      { description: `Added later: ${name}.`, inputSchema: {}, annotations: { readOnlyHint: true } },
      () => ({
        content: [{ type: 'text', text: name }],
      }),
    );
  }
  return server;
}
