import { log, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { emptyCost, TASK_HEARTBEAT_SHARE, type EngineActions } from '../../shared/cost';

/*
 * The run's engine actions, counted in one place: a workflow interceptor sees every activity, local activity, timer
 * and child the run starts and every signal and update it takes, so a new wait or activity cannot forget to bill
 * itself. Every stock bundle and the plugin register this module (`workflowInterceptorModules`). Module state is the
 * run's own (the SDK gives each workflow execution its own module instances), rebuilt the same way by a replay, and
 * starts from zero in each run of a chain: the ledger carries the earlier runs' totals.
 */

const counted: EngineActions = emptyCost().engineActions;
/** Whether this module is registered as an interceptor: a bundle without it counts nothing, which the run says once. */
let registered = false;
/** The history length of the workflow task whose local activities were last counted (one action per task). */
let localBatch: number | undefined;
/**
 * Starts of the latest tasks counted for local activities, heartbeats' included (workflow time, estimated across
 * heartbeats), so none is counted twice; the last is `localBatch`'s.
 */
const localTaskStarts: number[] = [];
/** Task starts remembered: more than local activities running side by side ever span. */
const REMEMBERED_TASKS = 64;

function count(kind: keyof EngineActions, amount = 1): void {
  if (amount > 0) counted[kind] += amount;
}

/** This run's engine actions so far (a copy). */
export function runEngineActions(): EngineActions {
  return { ...counted };
}

/** Says once, in the worker's log, that a run's bundle lacks this interceptor and so shows no engine actions. */
export function warnIfUncounted(): void {
  if (!registered) {
    log.warn(
      'Engine actions are not counted: the workflow bundle lacks durable-react-agent’s interceptor module ' +
        '(bundle with stockBundleOptions() or let the plugin bundle)',
    );
  }
}

/** A search-attribute upsert: the SDK has no interceptor for it, so the one place that upserts counts it. */
export function countSearchAttributeUpsert(): void {
  count('searchAttributeUpserts');
}

/** Attempts past an activity's first, read from its result (the SDK's interceptors do not see retries). */
export function countRetries(attempts: number | undefined, local = false): number {
  const retries = Math.max(0, (attempts ?? 1) - 1);
  count(local ? 'localActivityRetries' : 'activityRetries', retries);
  return retries;
}

/** Where a local activity was scheduled: its workflow task (by history length) and when that task started. */
export interface LocalStart {
  readonly task: number;
  readonly taskStartMs: number;
}

/**
 * Where a local activity is being scheduled. Workflow time is the task's start, except in an activation that
 * delivers a local activity's result (it is then that moment); the start of a task counted for such a result is known.
 */
export function localStart(): LocalStart {
  const task = workflowInfo().historyLength;
  const known = localBatch === task ? localTaskStarts.at(-1) : undefined;
  return { task, taskStartMs: known ?? Date.now() };
}

/**
 * A local activity's result is in. Its marker lands in the workflow task that received it, and all the markers of
 * one task are one action; a task held open past its heartbeat point was completed by a heartbeat and another
 * started, an action each. The history length names a task (it changes between tasks, not within one). A result that
 * arrived `n` heartbeat intervals after its task started spanned that task and `n` more, which start one interval
 * apart; tasks another local activity already counted (they ran side by side) are not counted again. An estimate only
 * near a heartbeat: the SDK's heartbeats drift a little later each time.
 */
function countLocalActivity(started: LocalStart): void {
  const { historyLength: task, taskTimeoutMs } = workflowInfo();
  if (localBatch === task) return; // this task, and the heartbeats before it, are counted
  const heartbeatMs = TASK_HEARTBEAT_SHARE * taskTimeoutMs;
  // The tasks it spanned, numbered from the one it was scheduled in (0) to the one it arrived in (`last`).
  const last = task === started.task ? 0 : Math.max(1, Math.floor((Date.now() - started.taskStartMs) / heartbeatMs));
  let tasks = 0;
  for (let index = 0; index <= last; index++) {
    const startMs = started.taskStartMs + index * heartbeatMs;
    // The task it arrived in is new (checked above); an earlier one may have been counted by another.
    if (index < last && localTaskStarts.some((other) => Math.abs(other - startMs) < heartbeatMs / 2)) continue;
    localTaskStarts.push(startMs);
    tasks += 1;
  }
  localTaskStarts.splice(0, Math.max(0, localTaskStarts.length - REMEMBERED_TASKS));
  localBatch = task;
  count('localActivityBatches', tasks);
}

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute(input, next) {
        registered = true;
        // A subagent's first run is its parent's child start (2 actions); every other run is a start of its own.
        const { parent, continuedFromExecutionRunId } = workflowInfo();
        if (parent === undefined || continuedFromExecutionRunId !== undefined) count('workflowStarts');
        return next(input);
      },
      // Each runs only for what reached history: a signal delivered to its handler, an update its validator accepted.
      handleSignal(input, next) {
        count('signals');
        return next(input);
      },
      handleUpdate(input, next) {
        count('updates');
        return next(input);
      },
    },
  ],
  outbound: [
    {
      scheduleActivity(input, next) {
        count('activities');
        return next(input);
      },
      async scheduleLocalActivity(input, next) {
        const started = localStart();
        try {
          return await next(input);
        } finally {
          countLocalActivity(started);
        }
      },
      startChildWorkflowExecution(input, next) {
        count('childStarts');
        return next(input);
      },
      startTimer(input, next) {
        count('timers');
        const task = workflowInfo().historyLength;
        const timer = next(input);
        // A timer cancelled in the task that started it never reaches the server (the start and the cancel are
        // dropped together), e.g. the timeout of a `condition` already true. A task's history length is its name.
        timer.catch(() => {
          if (workflowInfo().historyLength === task) counted.timers -= 1;
        });
        return timer;
      },
    },
  ],
});
