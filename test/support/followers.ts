import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { AgentClient } from '../../src/client/agent-client';

/**
 * A client whose queries and updates are counted: Temporal Cloud bills them though history does not show queries.
 * What live followers cost (the engine-actions test and bench P8).
 */
export function countingClient(
  base: Client,
  taskQueue: string,
): { client: Client; agents: AgentClient; sent: () => { queries: number; updates: number } } {
  let queries = 0;
  let updates = 0;
  const interceptor: WorkflowClientInterceptor = {
    query: (input, next) => ((queries += 1), next(input)),
    startUpdate: (input, next) => ((updates += 1), next(input)),
  };
  const client = new Client({ connection: base.connection, interceptors: { workflow: [interceptor] } });
  return { client, agents: new AgentClient({ client, taskQueue }), sent: () => ({ queries, updates }) };
}

/** The inbox's Server-Sent Events writer, into nothing: only what it asks of Temporal matters. */
export function nullResponse(): ServerResponse {
  const response = new EventEmitter() as unknown as ServerResponse;
  Object.assign(response, { writeHead: () => response, write: () => true, end: () => response });
  return response;
}
