/**
 * P8: engine actions per step, counted from each run's history the way Temporal Cloud bills them
 * (src/replay/engine-actions.ts), for a default run nobody follows, the same followed live by one and by three
 * subscribers, and a streamed run followed by one. Queries and updates a validator refused leave no event but are
 * billed too: the client counts what its followers sent (`clientQueries`, `clientUpdates`).
 */
import { streamRunEvents } from '../../src/inbox/event-stream';
import { chainEngineActions, engineActionsTotal, type EngineActions } from '../../src/replay';
import type { AgentConfig } from '../../src/shared/agent-config';
import { BENCH_TASK, benchModel } from '../scenario';
import { countingClient, nullResponse } from '../../test/support/followers';
import { succeeded, type DurableStack } from './durable-stack';

export interface ActionsJob {
  baseURL: string;
  /** Steps of every scenario's run. */
  steps: number;
}

export interface ActionsRow {
  scenario: string;
  steps: number;
  /** Model calls (the trace's iterations: the steps and the answer), what "per step" divides by, as the trace counts. */
  iterations: number;
  subscribers: number;
  actions: EngineActions;
  perStep: number;
  /** Queries and updates the followers sent (billed whether or not history shows them). */
  clientQueries: number;
  clientUpdates: number;
}

async function scenario(
  stack: DurableStack,
  job: ActionsJob,
  name: string,
  subscribers: number,
  config: AgentConfig = {},
  model = benchModel('noop', job.steps, `p8-${name}`),
): Promise<ActionsRow> {
  const { agents, client, sent } = countingClient(stack.client, stack.taskQueue);
  const run = await agents.start(BENCH_TASK, { ...config, model, limits: { maxIterations: job.steps + 1 } });
  const followers: Array<Promise<unknown>> = [];
  const drain = async (events: AsyncIterable<unknown>) => {
    for await (const event of events) void event;
  };
  // The three a user would have open: the CLI's printer (`run.events()`), a library caller, the inbox's page.
  if (subscribers >= 1) followers.push(drain(run.events()));
  if (subscribers >= 2) followers.push(drain(agents.handle(run.workflowId).events()));
  if (subscribers >= 3) followers.push(streamRunEvents(client, run.workflowId, 0, nullResponse()));
  await Promise.all(followers);
  const { trace } = await succeeded(stack, run.workflowId);
  const actions = await chainEngineActions(stack.client, run.workflowId);
  const { queries: clientQueries, updates: clientUpdates } = sent();
  console.error(
    `actions: ${name}: ${engineActionsTotal(actions)} in history, ${clientQueries} queries, ${clientUpdates} updates`,
  );
  return {
    scenario: name,
    steps: job.steps,
    iterations: trace.totalIterations,
    subscribers,
    actions,
    perStep: engineActionsTotal(actions) / trace.totalIterations,
    clientQueries,
    clientUpdates,
  };
}

/** The five scenarios, one after another on the same stack. */
export async function measureActions(stack: DurableStack, job: ActionsJob): Promise<ActionsRow[]> {
  // A model the worker has seen answer quickly (a warm-up run made its calls): a new run's first call then joins the
  // start's workflow task as a local activity (prepareRun's `opensLocally`).
  const known = benchModel('noop', job.steps, 'p8-known.steady');
  await scenario(stack, job, 'warm-up', 0, {}, known);
  return [
    await scenario(stack, job, 'default, nobody follows', 0),
    await scenario(stack, job, 'default, its model known to the worker', 0, {}, known),
    await scenario(stack, job, 'followed by 1', 1),
    await scenario(stack, job, 'followed by 3', 3),
    await scenario(
      stack,
      job,
      'streamed, followed by 1',
      1,
      { modelSettings: { stream: true } },
      benchModel('noop', job.steps, 'p8-streamed.stream'),
    ),
  ];
}
