import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type CreateMessageRequest,
  type CreateMessageResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig, McpServersConfig } from './config';
import { packageVersion } from '../../common/package-version';
import { visible } from '../../common/terminal-text';
import { HostedTaskStore, hostTask, sessionOf } from './tasks';

/** An HTTP session a task began in, joined by a later worker, and the protocol version its requests name. */
type Reattach = { session: string; version?: string | undefined };

/**
 * The worker's connections to its MCP servers. A connection opens at first use; a stdio server is a child process
 * of the worker. A connection that closes (the process died, the HTTP session ended) is forgotten, so the next use
 * starts the server again. `close()` stops them all.
 */
export class McpConnections {
  private readonly clients = new Map<string, Promise<Client>>();
  /** The client each server's entry above resolved to, so a late close of an old client forgets nothing newer. */
  private readonly connected = new Map<string, Client>();
  /** Every transport opened, connected or still connecting: a server that never answers is stopped through it. */
  private readonly transports = new Set<{ close(): Promise<void> }>();
  private closed = false;

  /**
   * `roots`: the folders the worker's file tools may read, offered as MCP roots (`roots/list`) to the servers whose
   * config sets `roots: true`, so a server that works on files keeps to the same ones. They are the worker's for its
   * life: no list ever changes.
   */
  /**
   * `asks`: answer a server's sampling and elicitation requests, for the servers whose config sets `sampling: true`
   * or `elicitation: true`. `polled`: the server sent the request as a task, and polls it rather than waiting.
   */
  constructor(
    private readonly servers: McpServersConfig,
    private readonly log: (line: string) => void = () => undefined,
    private readonly roots: readonly string[] = [],
    private readonly asks: {
      sample?: (
        server: string,
        params: CreateMessageRequest['params'],
        polled: boolean,
      ) => Promise<CreateMessageResult>;
      elicit?: (server: string, params: ElicitRequest['params'], polled: boolean) => Promise<ElicitResult>;
      /** A log line of the server's, for the call it may belong to (see `McpToolSource.logged`). */
      logged?: (server: string, line: string) => void;
    } = {},
  ) {}

  /**
   * The connected client of a server (connecting, or starting its process, when needed). `session`: an HTTP session
   * a task began in; a worker started since reattaches to it (the server keeps a task with its session).
   */
  async get(name: string, session?: string): Promise<Client> {
    const client = await this.open(name, name);
    const own = sessionOf(client);
    if (session === undefined || own === undefined || own === session) return client;
    // The old session's protocol version was not recorded: the one this worker's own handshake agreed is sent.
    const version = (client.transport as { protocolVersion?: string } | undefined)?.protocolVersion;
    return await this.open(name, `${name}\u0000${session}`, { session, version });
  }

  private open(name: string, key: string, reattach?: Reattach): Promise<Client> {
    if (this.closed) return Promise.reject(new Error('the worker is shutting down its MCP servers'));
    const existing = this.clients.get(key);
    if (existing) return existing;
    const config = this.servers[name];
    if (!config) return Promise.reject(new Error(`no MCP server named "${name}"`));
    const connecting = this.connect(name, config, key, reattach);
    this.clients.set(key, connecting);
    // A failed start is not cached: the next call tries again.
    connecting.catch(() => {
      if (this.clients.get(key) === connecting) this.clients.delete(key);
    });
    return connecting;
  }

  private async connect(name: string, config: McpServerConfig, key: string, reattach?: Reattach): Promise<Client> {
    // MCP servers are told this package's version as their client's.
    const sample = config.sampling ? this.asks.sample : undefined;
    // A server whose forms are declined unasked gets its answer here, before any call stops for it.
    const decline = () => Promise.resolve<ElicitResult>({ action: 'decline' });
    const elicit = config.elicitation === 'decline' ? decline : config.elicitation ? this.asks.elicit : undefined;
    // The tasks this server asked the client to run for it (see hostTask): its own, seen by no other server.
    const hosted = sample || elicit ? new HostedTaskStore() : undefined;
    const client = new Client(
      { name: 'durable-react-agent', version: packageVersion() },
      {
        capabilities: {
          ...(config.roots ? { roots: { listChanged: false } } : {}),
          ...(sample ? { sampling: {} } : {}),
          ...(elicit ? { elicitation: { form: {}, url: {} } } : {}),
          // Both may also come as tasks the server polls (see hostTask).
          ...(hosted
            ? {
                tasks: {
                  cancel: {},
                  requests: {
                    ...(sample ? { sampling: { createMessage: {} } } : {}),
                    ...(elicit ? { elicitation: { create: {} } } : {}),
                  },
                },
              }
            : {}),
        },
        ...(hosted ? { taskStore: hosted } : {}),
      },
    );
    if (sample) {
      client.setRequestHandler(CreateMessageRequestSchema, ({ params }, { taskStore }) =>
        params.task && taskStore
          ? hostTask(taskStore, params.task.ttl, 'working', sample(name, params, true))
          : sample(name, params, false),
      );
    }
    if (elicit) {
      client.setRequestHandler(ElicitRequestSchema, ({ params }, { taskStore }) =>
        params.task && taskStore
          ? hostTask(taskStore, params.task.ttl, 'input_required', elicit(name, params, true))
          : elicit(name, params, false),
      );
    }
    if (config.roots) {
      const roots = this.roots.map((root) => ({
        uri: pathToFileURL(path.resolve(root)).href,
        name: path.basename(root),
      }));
      client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
    }
    // A server's log lines (`notifications/message`) go to the worker's log, where its operator reads them.
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      const data = typeof params.data === 'string' ? params.data : JSON.stringify(params.data);
      // Shown as text: a server's control characters must not drive the operator's terminal.
      this.log(visible(`MCP server ${name}${params.logger ? ` (${params.logger})` : ''}: ${params.level}: ${data}`));
      this.asks.logged?.(name, `${params.level}: ${data}`);
    });
    const session = reattach?.session;
    const transport =
      config.command !== undefined
        ? new StdioClientTransport({
            command: config.command,
            args: config.args ?? [],
            env: { ...getDefaultEnvironment(), ...config.env },
            ...(config.cwd ? { cwd: config.cwd } : {}),
            stderr: 'inherit',
          })
        : new StreamableHTTPClientTransport(new URL(config.url ?? ''), {
            requestInit: { headers: config.headers ?? {} },
            // A session given is reattached to: the client skips the handshake the session already had.
            ...(session !== undefined ? { sessionId: session } : {}),
          });
    // A reattached client skips the handshake, so it is told the version every request must name.
    if (reattach?.version && transport instanceof StreamableHTTPClientTransport)
      transport.setProtocolVersion(reattach.version);
    this.transports.add(transport);
    client.onclose = () => {
      hosted?.cleanup();
      this.transports.delete(transport);
      if (this.connected.get(key) !== client) return;
      this.connected.delete(key);
      this.clients.delete(key);
      if (!this.closed) this.log(`MCP server ${name}: connection closed; the next call starts it again`);
    };
    await client.connect(transport);
    this.connected.set(key, client);
    return client;
  }

  /** Closes every connection (stdio servers are stopped); later calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.clients.values()];
    this.clients.clear();
    this.connected.clear();
    // Closing the transports first ends connections still waiting for a server that never answered its handshake.
    await Promise.all([...this.transports].map((transport) => transport.close().catch(() => undefined)));
    this.transports.clear();
    await Promise.all(all.map(async (client) => (await client.catch(() => null))?.close()));
  }
}
