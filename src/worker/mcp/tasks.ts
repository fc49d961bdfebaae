import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
  type CallToolRequest,
  type CreateTaskResult,
  type GetTaskResult,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions, RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { CallAnswer, CallNeed } from '../../shared/tool-protocol';
import { CallNeedsRunError } from '../tools/call-exchange';
import type { McpCallResult } from './results';
import { DurableAgentError, errorMessage } from '../../shared/errors';

/*
 * MCP tasks (a `tools/call` the server answers with a task, then `tasks/get`, `tasks/result`, `tasks/cancel`), the
 * durable way: each activity makes one short request and returns; the run waits between looks on workflow timers
 * (see the workflow's call-needs.ts), so no worker holds a call while a task runs for minutes or days. The other way
 * round, a server may send its own requests to the client as tasks: see {@link hostTask}.
 */

/** What a task's server suggests between looks, when it suggests nothing. */
const DEFAULT_POLL_MS = 5_000;

/**
 * How long a look at a task waiting for input (`input_required`) listens on `tasks/result` for the server's request
 * (it comes there, not on its own): a task that has moved on since is looked at again later, not waited on.
 */
export const INPUT_LISTEN_MS = 10_000;

/** A task whose server no longer knows it, or that ended without a result. */
export class McpTaskError extends DurableAgentError {
  override readonly name = 'McpTaskError';
}

/** The HTTP session a client's requests go to (none over stdio). */
export function sessionOf(client: Client): string | undefined {
  const transport = client.transport as { sessionId?: string } | undefined;
  return transport?.sessionId;
}

/** The call stops on its task: the run waits, then makes the call again to look at it. */
function waitOn(
  server: string,
  task: Pick<Task, 'taskId' | 'statusMessage' | 'pollInterval'> & { status: string },
  session: string | undefined,
): CallNeedsRunError {
  const need: CallNeed = {
    kind: 'task',
    server,
    key: 'task',
    task: {
      id: task.taskId,
      status: task.status,
      ...(task.statusMessage ? { message: task.statusMessage } : {}),
      pollMs: task.pollInterval ?? DEFAULT_POLL_MS,
      ...(session !== undefined ? { session } : {}),
    },
  };
  return new CallNeedsRunError(need);
}

/** Starts the call as a task on its server, and stops the call on it. */
export async function startTask(
  client: Client,
  server: string,
  params: CallToolRequest['params'],
  options: RequestOptions,
): Promise<never> {
  const created = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema, {
    ...options,
    task: {},
  });
  throw waitOn(server, created.task, sessionOf(client));
}

/**
 * One look at a task the run waits on: its result once it has ended; its server's request when it waits for input
 * (the request reaches the call's handlers, which stop the call on it through `listen`); else the call stops to wait
 * again. With `cancel`, the task is cancelled instead (the run no longer waits on it).
 */
export async function lookAtTask(
  client: Client,
  server: string,
  look: Extract<CallAnswer, { kind: 'task' }>,
  options: RequestOptions & { listen: AbortController },
): Promise<McpCallResult> {
  const tasks = client.experimental.tasks;
  if (look.cancel) {
    // A task that has ended, or that its server no longer knows, has nothing left to cancel.
    await tasks.cancelTask(look.id, options).catch(() => undefined);
    return { content: [{ type: 'text', text: `task ${look.id} cancelled` }], isError: true };
  }
  let task: GetTaskResult;
  try {
    task = await tasks.getTask(look.id, options);
  } catch (error) {
    if (options.signal?.aborted) throw error;
    if (error instanceof McpError && error.code === (ErrorCode.InvalidParams as number)) {
      throw new McpTaskError(
        `MCP server ${server} no longer knows task ${look.id} (${error.message}); a server the worker starts over ` +
          'stdio, and its tasks, end with the worker',
      );
    }
    // No answer (the network, a server restarting): looked at again after the next wait, within the run's looks.
    const unreachable = { taskId: look.id, status: 'unreachable', statusMessage: errorMessage(error) };
    throw waitOn(server, unreachable, look.session);
  }
  if (task.status === 'working') throw waitOn(server, task, look.session);
  if (task.status === 'input_required') {
    let heardNothing = false;
    const timer = setTimeout(() => {
      heardNothing = true;
      options.listen.abort();
    }, INPUT_LISTEN_MS);
    try {
      return await tasks.getTaskResult(look.id, CallToolResultSchema, options);
    } catch (error) {
      // No request came while listening: the task has moved on, or asks later.
      if (heardNothing) throw waitOn(server, task, look.session);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  if (task.status === 'completed') return await tasks.getTaskResult(look.id, CallToolResultSchema, options);
  // `failed` or `cancelled`: a failed task may still hold the tool's own error result.
  const result = await tasks.getTaskResult(look.id, CallToolResultSchema, options).catch(() => undefined);
  if (result && result.isError) return result;
  throw new McpTaskError(`task ${look.id} ${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
}

/** How long a task a server asked the client to run is kept, at most: the worker holds its request 10 minutes. */
const HOSTED_TASK_MS = 30 * 60_000;

/**
 * A request a server sends the client as a task (`params.task`: a sampling or elicitation request it then polls for,
 * rather than waiting on the reply): the server gets the task at once, `working` or (a person is asked)
 * `input_required`, or already `completed` when the run had answered it, and `answer` completes it when it comes; a
 * failed answer fails it, keeping its error for `tasks/result` ({@link HostedTaskStore}). A request refused at once
 * gets its error, not a task. The SDK answers the server's `tasks/get`, `tasks/result` and `tasks/cancel` from the
 * connection's task store.
 */
export async function hostTask(
  store: RequestTaskStore,
  ttl: number | undefined,
  waiting: 'working' | 'input_required',
  answer: Promise<Result>,
): Promise<CreateTaskResult> {
  // Taken at once, so a refusal never goes unhandled while the task is made.
  let given: { result: Result } | { error: unknown } | undefined;
  const answered = answer.then(
    (result) => (given = { result }),
    (error: unknown) => (given = { error }),
  );
  // What is at hand already (the run answered it before; it is refused) is known once pending callbacks have run.
  await new Promise((resolve) => setImmediate(resolve));
  // A refused request gets no task: its error is the reply, as it would be to the request made without one.
  if (given && 'error' in given) throw given.error;
  const lifetime = Math.min(Math.max(ttl ?? HOSTED_TASK_MS, 60_000), HOSTED_TASK_MS);
  const { taskId } = await store.createTask({ ttl: lifetime, pollInterval: 1000 });
  const settle = async (outcome: NonNullable<typeof given>) => {
    if ('result' in outcome) await store.storeTaskResult(taskId, 'completed', outcome.result);
    else await store.storeTaskResult(taskId, 'failed', { [FAILURE]: failureOf(outcome.error) });
  };
  if (given) await settle(given);
  else {
    if (waiting === 'input_required') await store.updateTaskStatus(taskId, waiting);
    // A task the server cancelled, or its store forgot, takes no late answer.
    void answered.then(settle).catch(() => undefined);
  }
  return { task: await store.getTask(taskId) };
}

/**
 * Where a failed hosted task's result keeps its request's error: a symbol, which no result a server or the run makes
 * can carry, and which never reaches the wire.
 */
const FAILURE = Symbol('failure');

interface Failure {
  code: number;
  message: string;
  data?: unknown;
}

/** The failure a stored result stands for, if it stands for one. */
function failureIn(result: Result): Failure | undefined {
  return (result as { [FAILURE]?: Failure })[FAILURE];
}

/** The JSON-RPC error the request would have been answered with, made as the SDK makes it from a thrown error. */
function failureOf(error: unknown): Failure {
  const { code, message, data } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
    data?: unknown;
  };
  return {
    code: typeof code === 'number' && Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
    message: typeof message === 'string' ? message : 'Internal error',
    ...(data !== undefined ? { data } : {}),
  };
}

/**
 * A connection's store of the tasks its server asked the client to run. A failed one says why in its status message,
 * and its `tasks/result` answers with the JSON-RPC error its request would have had, as the spec asks, not with a
 * result (the SDK's own store has none).
 */
export class HostedTaskStore extends InMemoryTaskStore {
  override async storeTaskResult(
    taskId: string,
    status: 'completed' | 'failed',
    result: Result,
    sessionId?: string,
  ): Promise<void> {
    const failure = failureIn(result);
    // Set here, not through the request's store, which would tell the server of a status that is about to change.
    if (failure) {
      const task = await this.getTask(taskId, sessionId);
      if (task) await this.updateTaskStatus(taskId, task.status, failure.message, sessionId);
    }
    await super.storeTaskResult(taskId, status, result, sessionId);
  }

  override async getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const result = await super.getTaskResult(taskId, sessionId);
    const failure = failureIn(result);
    // Thrown as it was, so the SDK's reply carries the same code, message and data (an McpError would prefix again).
    if (failure) throw Object.assign(new Error(failure.message), { code: failure.code, data: failure.data });
    return result;
  }
}
