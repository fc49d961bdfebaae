import { randomUUID } from 'node:crypto';
import type { ConfirmationPolicy } from '../../shared/approvals';
import { compileJsonSchema, withoutNonLinearPatterns } from '../../shared/json-schema';
import { withLinearConfirmation } from '../tools/confirmation-patterns';
import type { AnyToolDefinition, ToolOutput, ToolProgress } from '../tools/define-tool';
import type { DynamicToolSource } from '../tools/registry';
import { McpConnections } from './connections';
import type { McpServerConfig, McpServersConfig } from './config';
import { toToolOutput, type McpCallResult } from './results';
import { lookAtTask, startTask } from './tasks';
import { errorMessage } from '../../shared/errors';
import { parseDuration } from '../../shared/duration';
import { argsHash } from '../../shared/canonical';
import type { CallAnswer, CallNeed, ElicitationRequest, SamplingRequest } from '../../shared/tool-protocol';
import { callExchange, CallNeedsRunError, type CallExchange } from '../tools/call-exchange';
import {
  ErrorCode,
  McpError,
  RELATED_TASK_META_KEY,
  UrlElicitationRequiredError,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * A tool call in progress on a server: what its run has answered, and what it asked that has no answer yet. `id`: the
 * call's idempotency key, the same for each time it is made. `task`: the call is a look at this task of the server's
 * (see tasks.ts). `keep`: the call goes on while its run answers (see `askRun`); `kept`: it does, and no activity
 * follows it.
 */
interface CallInFlight {
  id: string;
  server: string;
  exchange: CallExchange | undefined;
  asked: AbortController;
  keep: () => void;
  kept: boolean;
  need?: CallNeed;
  task?: string;
  /** The call's progress reports (its `ToolContext.progress`: heartbeats and the run's events). */
  report: (update: ToolProgress) => void;
}

/**
 * How long a task's request to the run is held in the worker for the run's answer, and so the question's deadline.
 * The server waits on it (its task goes on once answered; many servers give up on their own sooner, the reference
 * server after a minute); a later answer, or one whose next look runs on another worker, finds nothing held. A
 * request a server sends as a task of the client's is held as long at most (within its call's timeout).
 */
export const HELD_REQUEST_MS = 10 * 60_000;

/** The task a request of a server belongs to, when the server says (MCP's related-task metadata). */
function relatedTask(params: { _meta?: Record<string, unknown> }): string | undefined {
  const related = params._meta?.[RELATED_TASK_META_KEY] as { taskId?: unknown } | undefined;
  return typeof related?.taskId === 'string' ? related.taskId : undefined;
}

/** A sampling request as the run's model gets it: text only (an image or audio turn is refused with a reason). */
function samplingRequest(params: CreateMessageRequest['params']): SamplingRequest | string {
  const messages: SamplingRequest['messages'] = [];
  for (const message of params.messages) {
    const parts = Array.isArray(message.content) ? message.content : [message.content];
    const texts = parts.map((part) => (part.type === 'text' ? part.text : undefined));
    if (texts.some((text) => text === undefined)) return 'only text sampling requests are served';
    messages.push({ role: message.role, text: texts.join('\n') });
  }
  return {
    messages,
    ...(params.systemPrompt ? { systemPrompt: params.systemPrompt } : {}),
    maxTokens: params.maxTokens,
  };
}

/**
 * An elicitation as the person is asked it: a form's message and schema, or a link's message and URL. A link must be
 * http(s): a `javascript:` or `file:` URL is nothing to put in front of a person.
 */
function elicitationRequest(params: {
  message: string;
  url?: unknown;
  requestedSchema?: unknown;
}): ElicitationRequest | string {
  if (params.url === undefined)
    return { message: params.message, requestedSchema: params.requestedSchema as Record<string, unknown> };
  const url = typeof params.url === 'string' && URL.canParse(params.url) ? new URL(params.url) : undefined;
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') return 'an elicitation URL must be http(s)';
  return { message: params.message, url: url.href };
}

/**
 * The link a call was refused for until a person opens it (MCP's -32042, URL elicitation required), when it is one.
 * A server marks the call it refused and lets the next one through, which may then ask a link of its own; when the
 * run makes that call again to answer it, the server refuses once more for the link already opened.
 */
function linkRequired(error: unknown): ElicitationRequest | undefined {
  const first = error instanceof UrlElicitationRequiredError ? error.elicitations[0] : undefined;
  const request = first ? elicitationRequest(first) : undefined;
  return typeof request === 'object' ? request : undefined;
}

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
  private readonly cache = new Map<string, { at: number; tools: AnyToolDefinition[] }>();
  /** When each server's listing last failed: runs meanwhile get its last list without waiting on it again. */
  private readonly failedAt = new Map<string, number>();

  /** `roots`: the folders offered to the servers as MCP roots (the worker's file tools' root). */
  constructor(
    private readonly servers: McpServersConfig,
    private readonly log: (line: string) => void = (line) => console.warn(line),
    roots: readonly string[] = [],
  ) {
    this.connections = new McpConnections(servers, log, roots, {
      sample: (server, params, polled) => this.sample(server, params, polled),
      elicit: (server, params, polled) => this.elicit(server, params, polled),
      logged: (server, line) => this.logged(server, line),
    });
  }

  /** The calls running on each server, so a request it makes back can be told which call it belongs to. */
  private readonly inFlight = new Map<string, Set<CallInFlight>>();

  /**
   * A server's sampling request, made while one of its tools' calls runs. Answered from the call's run when the run
   * has answered it before (the call is being made again); else the call stops, its activity says what it needs, and
   * the workflow asks the run's model as a model call of the run, then makes the call again. Nothing waits in this
   * process meanwhile. On stdio a request does not say which call made it: with several calls of the server running,
   * it is refused.
   */
  private sample(
    server: string,
    params: CreateMessageRequest['params'],
    polled: boolean,
  ): Promise<CreateMessageResult> {
    const request = samplingRequest(params);
    if (typeof request === 'string') return Promise.reject(new McpError(ErrorCode.InvalidParams, request));
    const ask = this.servers[server]?.sampling === 'ask' ? { ask: true as const } : {};
    const need = { kind: 'sampling' as const, server, key: argsHash(request), request, ...ask };
    return this.askRun(server, need, relatedTask(params), polled, (answer) =>
      answer.kind === 'sampling'
        ? {
            role: 'assistant',
            content: { type: 'text', text: answer.text },
            model: answer.model,
            stopReason: 'endTurn',
          }
        : undefined,
    );
  }

  /** A server's elicitation (a form, or a link to open), asked of a person by the run the same way. */
  private elicit(server: string, params: ElicitRequest['params'], polled: boolean): Promise<ElicitResult> {
    const request = elicitationRequest(params);
    if (typeof request === 'string') return Promise.reject(new McpError(ErrorCode.InvalidParams, request));
    const need = { kind: 'elicitation' as const, server, key: argsHash(request), request };
    return this.askRun(server, need, relatedTask(params), polled, (answer) =>
      answer.kind === 'elicitation'
        ? { action: answer.action, ...(answer.content ? { content: answer.content as ElicitResult['content'] } : {}) }
        : undefined,
    );
  }

  /**
   * A server's log line while one call of its tools runs here: a line of that call's progress too (the run's
   * `tool_progress` events), besides the worker's log. MCP's log notifications name no call, so with several running
   * (or none) the line stays in the worker's log only.
   */
  private logged(server: string, line: string): void {
    const calls = [...(this.inFlight.get(server) ?? [])];
    if (calls.length === 1) calls[0]?.report({ message: line });
  }

  /** Requests held for the run's answers, by server, call and request key (see {@link HELD_REQUEST_MS}). */
  private readonly held = new Map<string, (answer: CallAnswer) => boolean>();

  /** Calls kept going while their runs answer what their servers polled for (see `askRun`), by call. */
  private readonly kept = new Map<string, { call: CallInFlight; result: Promise<McpCallResult> }>();

  /**
   * Answers a request of the call running on `server` (the one looking at its `task`, or the only one) from what its
   * run has answered, or stops the call so its run answers it (the activity returns `need`, and the call is made again
   * with the answer). Two requests are held meanwhile instead, since their servers wait on them rather than asking
   * again: a task's (the look stops; the next look brings the answer), and one the server polls as a task of the
   * client's (`polled`: the call is kept going, and the run's answer, made again, joins it while this worker holds it).
   */
  private askRun<Result>(
    server: string,
    need: Exclude<CallNeed, { kind: 'task' }>,
    task: string | undefined,
    polled: boolean,
    reply: (answer: CallAnswer) => Result | undefined,
  ): Promise<Result> {
    const running = [...(this.inFlight.get(server) ?? [])];
    const calls = task === undefined ? running : running.filter((call) => call.task === task);
    const call = calls.length === 1 ? calls[0] : undefined;
    if (!call?.exchange || call.kept) {
      const why =
        calls.length === 0
          ? 'no call of its tools is running'
          : call?.kept
            ? 'its call waits on its run for an earlier request'
            : 'several calls of its tools are running';
      return Promise.reject(new McpError(ErrorCode.InvalidRequest, `${need.kind} refused: ${why}`));
    }
    // A request made during a look at a task is the task's, whether or not the server says so.
    const looking = call.task;
    if (looking === undefined) {
      const answer = call.exchange.answers[need.key];
      const replied = answer ? reply(answer) : undefined;
      if (replied !== undefined) return Promise.resolve(replied);
      call.need = need;
      // The server polls a task of ours rather than waiting on the reply: the call goes on, and its request is held.
      // Made again elsewhere, or after the hold, the call is answered from the run like any other.
      if (polled) {
        call.keep();
        return this.hold(server, call.id, need.key, reply);
      }
      call.asked.abort();
      return Promise.reject(new McpError(ErrorCode.InternalError, 'the run answers this; the call is made again then'));
    }
    // A task is not made again, so its request is held for the answer. Each request is a question of its own (a task
    // may ask the same thing twice): its key is new, so an answer reaches this request only, never a later one.
    const key = argsHash({ task: looking, request: need.key, nonce: randomUUID() });
    call.need = { ...need, key, heldMs: HELD_REQUEST_MS };
    call.asked.abort();
    return this.hold(server, call.id, key, reply);
  }

  /** Holds a server's request for its run's answer (given by `answerHeld`), {@link HELD_REQUEST_MS} at most. */
  private hold<Result>(
    server: string,
    call: string,
    key: string,
    reply: (answer: CallAnswer) => Result | undefined,
  ): Promise<Result> {
    const id = `${server}\u0000${call}\u0000${key}`;
    return new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.held.delete(id);
        reject(new McpError(ErrorCode.RequestTimeout, 'the run gave no answer in time'));
      }, HELD_REQUEST_MS);
      timer.unref();
      this.held.set(id, (given) => {
        const result = reply(given);
        if (result === undefined) return false;
        clearTimeout(timer);
        this.held.delete(id);
        resolve(result);
        return true;
      });
    });
  }

  /** Gives a call's held requests the run's answers to them, as it is made again: whether one took its answer. */
  private answerHeld(server: string, call: string, answers: Readonly<Record<string, CallAnswer>>): boolean {
    let taken = false;
    for (const [key, answer] of Object.entries(answers)) {
      if (this.held.get(`${server}\u0000${call}\u0000${key}`)?.(answer) === true) taken = true;
    }
    return taken;
  }

  /**
   * The call's result. When its server polls a task of ours meanwhile for something the run must answer (askRun keeps
   * the call), the call goes on without this activity, which ends with what the run must answer; the activity of the
   * call made again then follows it (`rejoin`).
   */
  private async follow(call: CallInFlight, calling: Promise<McpCallResult>): Promise<ToolOutput> {
    const keeping = new Promise<undefined>((resolve) => (call.keep = () => resolve(undefined)));
    const result = await Promise.race([calling, keeping]);
    if (result !== undefined || !call.need) return toToolOutput(await calling);
    call.kept = true;
    const kept = { call, result: calling };
    this.kept.set(call.id, kept);
    // Ended before its run's answer came (the server stopped waiting, the call's timeout): the call made again with
    // the answer is then a new call.
    const forget = () => {
      if (this.kept.get(call.id) !== kept) return;
      this.kept.delete(call.id);
      this.leave(call);
    };
    calling.then(forget, forget);
    throw new CallNeedsRunError(call.need);
  }

  /**
   * The call kept going for this activity's call, when the run's answer reaches the request it holds: it goes on with
   * it, followed by this activity. Otherwise (the hold is over, the answer is not one it can take) it is stopped, and
   * the call is made anew.
   */
  private rejoin(
    id: string,
    exchange: CallExchange | undefined,
    report: CallInFlight['report'],
  ): { call: CallInFlight; result: Promise<McpCallResult> } | undefined {
    const kept = this.kept.get(id);
    if (!kept) return undefined;
    this.kept.delete(id);
    const { call } = kept;
    call.kept = false;
    if (exchange && this.answerHeld(call.server, id, exchange.answers)) {
      delete call.need;
      Object.assign(call, { exchange, report });
      return kept;
    }
    call.asked.abort();
    this.leave(call);
    return undefined;
  }

  /** The call no longer runs on its server (see `inFlight`). */
  private leave(call: CallInFlight): void {
    this.inFlight.get(call.server)?.delete(call);
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
            // A call kept going on this worker while its run answered goes on with the answer (see askRun).
            const kept = look ? undefined : this.rejoin(context.idempotencyKey, exchange, report);
            const call: CallInFlight = kept?.call ?? {
              id: context.idempotencyKey,
              server,
              exchange,
              asked: new AbortController(),
              keep: () => undefined,
              kept: false,
              ...(look ? { task: look.id } : {}),
              report,
            };
            const calls = this.inFlight.get(server) ?? new Set();
            this.inFlight.set(server, calls.add(call));
            // This activity's end (cancelled, timed out) ends the call, whichever activity started it.
            const stop = () => call.asked.abort();
            context.signal.addEventListener('abort', stop, { once: true });
            try {
              if (kept) return await this.follow(call, kept.result);
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
                this.answerHeld(server, call.id, exchange?.answers ?? {});
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
              return await this.follow(call, calling);
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
              if (!call.kept) this.leave(call);
            }
          },
        }),
      );
    }
    return definitions;
  }
}
