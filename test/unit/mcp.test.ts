import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateTaskResultSchema,
  ElicitRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetTaskResultSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { McpConfigError, parseMcpServers } from '../../src/worker/mcp/config';
import { McpToolError, toToolOutput } from '../../src/worker/mcp/results';
import { HostedTaskStore, hostTask } from '../../src/worker/mcp/tasks';
import { confirmFromAnnotations, mcpToolName } from '../../src/worker/mcp/tool-source';

describe('MCP configuration and mapping', () => {
  it('refuses a bad server config with every problem on one line', () => {
    expect(() => parseMcpServers({ 'bad name': { command: 'x' } })).toThrow(McpConfigError);
    expect(() => parseMcpServers({ gh: { url: 'not a url' } })).toThrow(/gh/);
    expect(() => parseMcpServers({ gh: { command: 'x', confirm: 'sometimes' } })).toThrow(/gh\.confirm/);
    expect(() => parseMcpServers({ gh: { command: 'x', url: 'http://127.0.0.1/mcp' } })).toThrow(
      'MCP servers: gh: give either command (a stdio server) or url (streamable HTTP)',
    );
    expect(parseMcpServers({ gh: { command: 'x', tools: { merge: { confirm: 'always', timeout: '2m' } } } })).toEqual({
      gh: { command: 'x', tools: { merge: { confirm: 'always', timeout: '2m' } } },
    });
  });

  it('names tools per server in a form every provider accepts', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('github__create_issue');
    expect(mcpToolName('fs', 'read.file/v2')).toBe('fs__read_file_v2');
  });

  it('asks before destructive or unannotated tools; read-only and non-destructive ones run', () => {
    expect(confirmFromAnnotations(undefined)).toBe('always');
    expect(confirmFromAnnotations({ destructiveHint: true })).toBe('always');
    expect(confirmFromAnnotations({ readOnlyHint: true })).toBe('never');
    expect(confirmFromAnnotations({ destructiveHint: false })).toBe('never');
  });

  it('maps results: text, structured content, summarised media, and errors', () => {
    expect(
      toToolOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toBe('a\nb');
    expect(toToolOutput({ content: [], structuredContent: { id: 1 } })).toEqual({ id: 1 });
    expect(
      toToolOutput({
        content: [{ type: 'resource', resource: { uri: 'file:///x.pdf', mimeType: 'application/pdf', blob: 'AAAA' } }],
      }),
    ).toBe('[resource file:///x.pdf: application/pdf, 3 bytes, not shown]');
    expect(() => toToolOutput({ content: [{ type: 'text', text: 'nope' }], isError: true })).toThrow(McpToolError);
  });
});

describe('tasks a server asks the client to run', () => {
  it("answers a failed task's tasks/result with the error its request would have had", async () => {
    const server = new Server({ name: 'asker', version: '1.0.0' }, { capabilities: {} });
    const store = new HostedTaskStore();
    const client = new Client(
      { name: 'durable-react-agent', version: '0.0.0' },
      {
        capabilities: { elicitation: { form: {} }, tasks: { cancel: {}, requests: { elicitation: { create: {} } } } },
        taskStore: store,
      },
    );
    // The run's answer fails after the task exists: the worker's hold on the request ran out.
    const noAnswer = () =>
      new Promise<never>((_, reject) =>
        setTimeout(
          () => reject(new McpError(ErrorCode.RequestTimeout, 'the run gave no answer in time', { heldMs: 600_000 })),
          50,
        ),
      );
    client.setRequestHandler(ElicitRequestSchema, ({ params }, { taskStore }) =>
      params.task && taskStore ? hostTask(taskStore, params.task.ttl, 'input_required', noAnswer()) : noAnswer(),
    );
    const [near, far] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(near), client.connect(far)]);
    const form = {
      mode: 'form' as const,
      message: 'Which environment?',
      requestedSchema: { type: 'object' as const, properties: {} },
    };
    const asked = await server
      .request({ method: 'elicitation/create', params: form }, ElicitResultSchema)
      .catch((error: unknown) => error as McpError);

    const { task } = await server.request(
      { method: 'elicitation/create', params: { ...form, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    expect(task.status).toBe('input_required');
    let status = task.status;
    let statusMessage: string | undefined;
    for (let look = 0; look < 50 && status === 'input_required'; look++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ({ status, statusMessage } = await server.request(
        { method: 'tasks/get', params: { taskId: task.taskId } },
        GetTaskResultSchema,
      ));
    }
    expect(status).toBe('failed');
    expect(statusMessage).toContain('the run gave no answer in time');
    const result = await server
      .request({ method: 'tasks/result', params: { taskId: task.taskId } }, ElicitResultSchema)
      .then(
        () => 'a result',
        (error: unknown) => error as McpError,
      );
    expect(asked).toBeInstanceOf(McpError);
    expect(result).toBeInstanceOf(McpError);
    expect((result as McpError).code).toBe(ErrorCode.RequestTimeout);
    expect((result as McpError).message).toBe((asked as McpError).message);
    expect((result as McpError).data).toEqual({ heldMs: 600_000 });
    expect((asked as McpError).data).toEqual({ heldMs: 600_000 });
    await Promise.all([client.close(), server.close()]);
    store.cleanup();
  });
});
