import { QueryNotRegisteredError, type WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition } from '@temporalio/common';

/** How long a query waits for a just-started run to register its handlers. */
const READY_WITHIN_MS = 10_000;

/**
 * Queries an agent run. A run registers its query handlers once its start is checked (a local activity that
 * validates the config and lists the tools), so a query in the first moments after the start finds none, and
 * Temporal does not hold queries for handlers to come the way it holds signals and updates. Such a query is tried
 * again while the run is running, for up to 10 s; a closed run that never registered them (refused at its start)
 * fails at once.
 */
export async function queryRun<Result, Args extends unknown[]>(
  handle: WorkflowHandle,
  query: QueryDefinition<Result, Args>,
  ...args: Args
): Promise<Result> {
  const deadline = Date.now() + READY_WITHIN_MS;
  for (let waitMs = 20; ; waitMs = Math.min(waitMs * 2, 500)) {
    try {
      return await handle.query(query, ...args);
    } catch (error) {
      if (!(error instanceof QueryNotRegisteredError) || Date.now() > deadline) throw error;
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') throw error;
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
