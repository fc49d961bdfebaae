import type { ConfirmationPolicy } from '../../shared/approvals';
import { compileJsonSchema, withoutNonLinearPatterns } from '../../shared/json-schema';
import { withLinearConfirmation } from '../tools/confirmation-patterns';
import type { AnyToolDefinition, ToolProgress } from '../tools/define-tool';
import type { DynamicToolSource } from '../tools/registry';
import { McpConnections } from './connections';
import type { McpServerConfig, McpServersConfig } from './config';
import { toToolOutput, type McpCallResult } from './results';
import { lookAtTask, startTask } from './tasks';
import { CallRequests, linkRequired } from './call-requests';
import { errorMessage } from '../../shared/errors';
import { parseDuration } from '../../shared/duration';
import { argsHash } from '../../shared/canonical';
import { callExchange, CallNeedsRunError } from '../tools/call-exchange';

/** How long a server's tool list is trusted before it is asked again, unless the config says otherwise. */
export const DEFAULT_MCP_REFRESH = '5m';
/** Per-call timeout of MCP tools that set none. */
export const DEFAULT_MCP_TIMEOUT = '60s';
/**
 * Longest wait for a server's tool list (connecting included). Every run's start lists tools: a server that never
 * answers used to hold each one for the activity's whole timeout and retries, and fail it, MCP tools or not.
 */
export const MCP_LIST_TIMEOUT_MS = 5_000;
/** How long a server whose listing failed is left alone before it is asked again; its last list is kept meanwhile. */
export const MCP_LIST_BACKOFF_MS = 30_000;

/** An MCP tool as the server lists it. */
interface ListedTool {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
  /** Whether the server runs the tool's calls as tasks (`required`, `optional`) or not. */
  execution?: { taskSupport?: string };
}

/** A duration of the config (checked there when read), in milliseconds. */
function toMs(duration: string): number {
  return parseDuration(duration) ?? 0;
}

/**
 * The default policy of a tool the config says nothing about, from its annotations. MCP says an unannotated tool may
 * be destructive, so it asks; a tool marked read-only, or not destructive, runs without asking.
 */
export function confirmFromAnnotations(annotations: ListedTool['annotations']): ConfirmationPolicy {
  if (annotations?.readOnlyHint === true || annotations?.destructiveHint === false) return 'never';
  return 'always';
}

/** The name the model and the run use: `<server>__<tool>`, with characters tool names cannot have replaced. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool.replace(/[^a-zA-Z0-9_-]/g, '_')}`.slice(0, 64);
}

/**
 * The tools whose names no other tool shares. Names are sanitised and cut (`wipe.all` and `wipe_all` both become
 * `server__wipe_all`), and a shared name would let the run apply one tool's approval policy while the worker runs the
 * other: every tool of a shared name is left out, and the servers' logs say which.
 */
export function unambiguous(tools: readonly AnyToolDefinition[]): AnyToolDefinition[] {
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  return tools.filter((tool) => counts.get(tool.name) === 1);
}

/**
 * The tools of a worker's MCP servers, as tool definitions in the worker's registry. The lists are fetched in the
 * activities that need them (listTools, the model call, runTool) and cached per server for its refresh interval; a
 * server that cannot be reached keeps its last list (or none) and is asked again at the next refresh.
 */
export class McpToolSource implements DynamicToolSource {
  readonly connections: McpConnections;
  /** The calls in flight and what their servers ask back. */
  private readonly requests: CallRequests;
  private readonly cache = new Map<string, { at: number; tools: AnyToolDefinition[] }>();
  /** When each server's listing last failed: runs meanwhile get its last list without waiting on it again. */
  private readonly failedAt = new Map<string, number>();

  /** `roots`: the folders offered to the servers as MCP roots (the worker's file tools' root). */
  constructor(
    private readonly servers: McpServersConfig,
    private readonly log: (line: string) => void = (line) => console.warn(line),
    roots: readonly string[] = [],
  ) {
    const requests = new CallRequests(servers);
    this.requests = requests;
    this.connections = new McpConnections(servers, log, roots, {
      sample: (server, params, polled) => requests.sample(server, params, polled),
      elicit: (server, params, polled) => requests.elicit(server, params, polled),
      logged: (server, line) => requests.logged(server, line),
    });
  }

  tools(): AnyToolDefinition[] {
    return unambiguous([...this.cache.values()].flatMap((entry) => entry.tools));
  }

  async refresh(names?: readonly string[]): Promise<void> {
    // A run that names its tools waits only on the servers they come from (`<server>__<tool>`).
    const servers = Object.entries(this.servers).filter(
      ([server]) => names === undefined || names.some((name) => name.startsWith(`${server}__`)),
    );
    await Promise.all(
      servers.map(async ([name, config]) => {
        const cached = this.cache.get(name);
        if (cached && Date.now() - cached.at < toMs(config.refresh ?? DEFAULT_MCP_REFRESH)) return;
        const failed = this.failedAt.get(name);
        if (failed !== undefined && Date.now() - failed < MCP_LIST_BACKOFF_MS) return;
        let timer: NodeJS.Timeout | undefined;
        try {
          const listing = this.connections.get(name).then(async (client) => (await client.listTools()).tools);
          // A listing that fails after the timeout won is already reported: its late rejection must not go unhandled.
          listing.catch(() => undefined);
          const timeout = new Promise<never>((_resolve, reject) => {
            timer = setTimeout(
              () => reject(new Error(`no answer within ${MCP_LIST_TIMEOUT_MS / 1000} s`)),
              MCP_LIST_TIMEOUT_MS,
            );
          });
          const listed = (await Promise.race([listing, timeout])) as ListedTool[];
          this.cache.set(name, { at: Date.now(), tools: this.define(name, config, listed) });
          this.failedAt.delete(name);
          const all = [...this.cache.values()].flatMap((entry) => entry.tools);
          const kept = new Set(unambiguous(all));
          for (const tool of all) {
            if (tool.category === `mcp:${name}` && !kept.has(tool)) {
              this.log(`MCP tool ${tool.name} left out: another tool's name becomes the same once made valid`);
            }
          }
        } catch (error) {
          this.failedAt.set(name, Date.now());
          this.log(`MCP server ${name}: listing its tools failed: ${errorMessage(error)}`);
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }

  /** Stops the worker's stdio servers and closes HTTP sessions. */
  close(): Promise<void> {
    return this.connections.close();
  }

  private define(server: string, config: McpServerConfig, listed: ListedTool[]): AnyToolDefinition[] {
    const offered = listed.filter(
      (tool) => (!config.allow || config.allow.includes(tool.name)) && !config.deny?.includes(tool.name),
    );
    const definitions: AnyToolDefinition[] = [];
    for (const tool of offered) {
      // Validated in the activity like a zod tool's arguments: the server's schema, compiled by zod.
      // A server's schema may use patterns the linear-time engine cannot run; the server checks them itself.
      const { schema: inputSchema, dropped } = withoutNonLinearPatterns(tool.inputSchema);
      if (dropped.length > 0) {
        this.log(`MCP tool ${server}/${tool.name}: not checking its patterns ${dropped.join(', ')} (not linear-time)`);
      }
      const schema = compileJsonSchema(inputSchema as Record<string, unknown>);
      if (typeof schema === 'string') {
        this.log(`MCP tool ${server}/${tool.name} left out: its input schema is ${schema}`);
        continue;
      }
      const settings = config.tools?.[tool.name];
      const timeout = settings?.timeout ?? config.timeout ?? DEFAULT_MCP_TIMEOUT;
      definitions.push(
        withLinearConfirmation({
          name: mcpToolName(server, tool.name),
          description: tool.description ?? `${tool.name} (MCP server ${server})`,
          category: `mcp:${server}`,
          schema: schema,
          parameters: tool.inputSchema,
          confirm: settings?.confirm ?? config.confirm ?? confirmFromAnnotations(tool.annotations),
          timeout,
          retry: { maximumAttempts: settings?.maximumAttempts ?? 1 },
          handler: async (args, context) => {
            const exchange = callExchange.getStore();
            const look = exchange?.answers.task?.kind === 'task' ? exchange.answers.task : undefined;
            const report = (update: ToolProgress) => context.progress?.(update);
            // A call kept going on this worker while its run answered goes on with the answer (see CallRequests).
            const { call, kept } = this.requests.enter(server, {
              id: context.idempotencyKey,
              exchange,
              ...(look ? { task: look.id } : {}),
              report,
            });
            // This activity's end (cancelled, timed out) ends the call, whichever activity started it.
            const stop = () => call.asked.abort();
            context.signal.addEventListener('abort', stop, { once: true });
            try {
              if (kept) return await this.requests.follow(call, kept);
              const client = await this.connections.get(server, look?.session);
              // The activity's own timeout (the same value) ends the call and aborts the request through the signal;
              // the MCP client's is a backstop a second later, so the observation always says which timeout it was.
              // The server's progress notifications go with the heartbeats of the activity that follows the call.
              const options = {
                signal: call.asked.signal,
                timeout: toMs(timeout) + 1000,
                onprogress: ({ progress, total, message }: ToolProgress) =>
                  call.report({
                    ...(progress !== undefined ? { progress } : {}),
                    ...(total !== undefined ? { total } : {}),
                    ...(message !== undefined ? { message } : {}),
                  }),
              };
              // Servers that de-duplicate side effects find the key where MCP keeps request metadata.
              const params = {
                name: tool.name,
                arguments: args as Record<string, unknown>,
                _meta: { idempotencyKey: context.idempotencyKey },
              };
              if (look) {
                this.requests.answerHeld(call, exchange?.answers ?? {});
                return toToolOutput(await lookAtTask(client, server, look, { ...options, listen: call.asked }));
              }
              // A server that runs the tool as a task answers at once with the task, which the run then waits on.
              const taskSupport = tool.execution?.taskSupport;
              const servesTasks = client.getServerCapabilities()?.tasks?.requests?.tools?.call !== undefined;
              if (servesTasks && (taskSupport === 'required' || taskSupport === 'optional'))
                await startTask(client, server, params, options);
              const callTool = async () => (await client.callTool(params, undefined, options)) as McpCallResult;
              // A call refused until the person opens a link the run's person has already opened is retried once:
              // a server may refuse again when the call it let through was made again (see linkRequired).
              const calling = callTool().catch((error: unknown) => {
                const link = linkRequired(error);
                const opened = link ? exchange?.answers[argsHash(link)] : undefined;
                if (opened?.kind === 'elicitation' && opened.action === 'accept') return callTool();
                throw error;
              });
              return await this.requests.follow(call, calling);
            } catch (error) {
              if (call.need) throw new CallNeedsRunError(call.need);
              // A call refused until the person opens a link (-32042): asked like a link the server asks for, then
              // the call is made again.
              const link = config.elicitation === true ? linkRequired(error) : undefined;
              const key = link ? argsHash(link) : '';
              if (link && !exchange?.answers[key])
                throw new CallNeedsRunError({ kind: 'elicitation', server, key, request: link });
              throw error;
            } finally {
              context.signal.removeEventListener('abort', stop);
              if (!call.kept) this.requests.leave(call);
            }
          },
        }),
      );
    }
    return definitions;
  }
}
