import { randomUUID } from 'node:crypto';
import { argsHash } from '../../shared/canonical';
import type { CallAnswer, CallNeed, ElicitationRequest, SamplingRequest } from '../../shared/tool-protocol';
import { CallNeedsRunError, type CallExchange } from '../tools/call-exchange';
import type { ToolOutput, ToolProgress } from '../tools/define-tool';
import type { McpServersConfig } from './config';
import { toToolOutput, type McpCallResult } from './results';
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

/*
 * What a server asks back while one of its tools' calls runs on this worker (sampling, a form or a link), and how it
 * reaches the call's run: the call stops and is made again with the answer, or (a server that waits rather than asks
 * again) its request is held in this worker for the answer.
 */

/**
 * A tool call in progress on a server: what its run has answered, and what it asked that has no answer yet. `id`: the
 * call's idempotency key, the same for each time it is made. `task`: the call is a look at this task of the server's
 * (see tasks.ts). `keep`: the call goes on while its run answers (see `askRun`); `kept`: it does, and no activity
 * follows it.
 */
export interface CallInFlight {
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
export function linkRequired(error: unknown): ElicitationRequest | undefined {
  const first = error instanceof UrlElicitationRequiredError ? error.elicitations[0] : undefined;
  const request = first ? elicitationRequest(first) : undefined;
  return typeof request === 'object' ? request : undefined;
}

/** A held request's name: its server, its call and its key. */
function heldId(call: CallInFlight, key: string): string {
  return `${call.server}\u0000${call.id}\u0000${key}`;
}

/** The calls of this worker's MCP tools in flight, and what their servers ask back (see the file's comment). */
export class CallRequests {
  constructor(private readonly servers: McpServersConfig) {}

  /** The calls running on each server, so a request it makes back can be told which call it belongs to. */
  private readonly inFlight = new Map<string, Set<CallInFlight>>();

  /**
   * Registers a call about to run: the call kept going for it, when the run's answer reaches it (`kept`: follow it),
   * or a new one.
   */
  enter(
    server: string,
    fresh: Omit<CallInFlight, 'server' | 'asked' | 'keep' | 'kept'>,
  ): { call: CallInFlight; kept?: Promise<McpCallResult> } {
    const rejoined = fresh.task === undefined ? this.rejoin(fresh.id, fresh.exchange, fresh.report) : undefined;
    const call = rejoined?.call ?? {
      ...fresh,
      server,
      asked: new AbortController(),
      keep: () => undefined,
      kept: false,
    };
    const calls = this.inFlight.get(server) ?? new Set();
    this.inFlight.set(server, calls.add(call));
    return rejoined ? { call, kept: rejoined.result } : { call };
  }

  /**
   * A server's sampling request, made while one of its tools' calls runs. Answered from the call's run when the run
   * has answered it before (the call is being made again); else the call stops, its activity says what it needs, and
   * the workflow asks the run's model as a model call of the run, then makes the call again. Nothing waits in this
   * process meanwhile. On stdio a request does not say which call made it: with several calls of the server running,
   * it is refused.
   */
  sample(server: string, params: CreateMessageRequest['params'], polled: boolean): Promise<CreateMessageResult> {
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
  elicit(server: string, params: ElicitRequest['params'], polled: boolean): Promise<ElicitResult> {
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
  logged(server: string, line: string): void {
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
        return this.hold(call, need.key, reply);
      }
      call.asked.abort();
      return Promise.reject(new McpError(ErrorCode.InternalError, 'the run answers this; the call is made again then'));
    }
    // A task is not made again, so its request is held for the answer. Each request is a question of its own (a task
    // may ask the same thing twice): its key is new, so an answer reaches this request only, never a later one.
    const key = argsHash({ task: looking, request: need.key, nonce: randomUUID() });
    call.need = { ...need, key, heldMs: HELD_REQUEST_MS };
    call.asked.abort();
    return this.hold(call, key, reply);
  }

  /** Holds a server's request for its run's answer (given by `answerHeld`), {@link HELD_REQUEST_MS} at most. */
  private hold<Result>(
    call: CallInFlight,
    key: string,
    reply: (answer: CallAnswer) => Result | undefined,
  ): Promise<Result> {
    const id = heldId(call, key);
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
  answerHeld(call: CallInFlight, answers: Readonly<Record<string, CallAnswer>>): boolean {
    let taken = false;
    for (const [key, answer] of Object.entries(answers)) {
      if (this.held.get(heldId(call, key))?.(answer) === true) taken = true;
    }
    return taken;
  }

  /**
   * The call's result. When its server polls a task of ours meanwhile for something the run must answer (askRun keeps
   * the call), the call goes on without this activity, which ends with what the run must answer; the activity of the
   * call made again then follows it (`rejoin`).
   */
  async follow(call: CallInFlight, calling: Promise<McpCallResult>): Promise<ToolOutput> {
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
    if (exchange && this.answerHeld(call, exchange.answers)) {
      delete call.need;
      Object.assign(call, { exchange, report });
      return kept;
    }
    call.asked.abort();
    this.leave(call);
    return undefined;
  }

  /** The call no longer runs on its server (see `inFlight`). */
  leave(call: CallInFlight): void {
    this.inFlight.get(call.server)?.delete(call);
  }
}
