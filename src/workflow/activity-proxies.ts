import {
  ActivityCancellationType,
  ActivityFailure,
  ApplicationFailure,
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../worker/activities';
import { MODEL_ERROR_TYPES, NON_RETRYABLE_MODEL_ERRORS, errorMessage } from '../shared/errors';
import type { ModelCallPolicy } from '../shared/config-fields';

/**
 * The model's own failure behind a model call that failed: an activity's arrives wrapped (its ActivityFailure's
 * cause), a local activity's as the failure itself.
 */
export function modelFailure(error: unknown): ApplicationFailure | undefined {
  if (error instanceof ActivityFailure) return error.cause instanceof ApplicationFailure ? error.cause : undefined;
  return error instanceof ApplicationFailure && MODEL_ERROR_TYPES.has(error.type ?? '') ? error : undefined;
}

/** What a failed activity said (its cause's message), for the trace and the error history. */
export function activityFailureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return errorMessage(error);
}

/**
 * Model calls: the openai client times out at 60 s with no retries of its own, so one attempt fits in 90 s;
 * heartbeats every 2 s let a cancelled run abort the request. Retries back off from 1 s to 60 s (or as the
 * endpoint's retry-after says); auth, not-found and bad-request errors are not retried.
 */
export const MODEL_ACTIVITY_TIMEOUT_MS = 90_000;
/** Attempts per model call before the run fails with the last error. */
export const MODEL_MAXIMUM_ATTEMPTS = 6;

const MODEL_RETRY = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '60s',
  maximumAttempts: MODEL_MAXIMUM_ATTEMPTS,
  nonRetryableErrorTypes: [...NON_RETRYABLE_MODEL_ERRORS],
};

/**
 * The model activities (thinking, summarising, critiquing) under a run's recorded policy (the worker's `modelCalls`
 * when the run started; these defaults when it recorded none). `callModelLocally`: the same call as a local activity
 * (config `modelCalls: 'local'`), with the same timeout and retries; without heartbeats, a cancelled run's request is
 * aborted when the workflow task delivers the cancellation. Making a proxy issues no command.
 */
export function modelActivities(policy: ModelCallPolicy | undefined) {
  const startToCloseTimeout = policy?.timeoutMs ?? MODEL_ACTIVITY_TIMEOUT_MS;
  const retry = {
    ...MODEL_RETRY,
    ...(policy?.maximumAttempts !== undefined ? { maximumAttempts: policy.maximumAttempts } : {}),
    ...(policy?.initialIntervalMs !== undefined ? { initialInterval: policy.initialIntervalMs } : {}),
    ...(policy?.maximumIntervalMs !== undefined ? { maximumInterval: policy.maximumIntervalMs } : {}),
    ...(policy?.backoffCoefficient !== undefined ? { backoffCoefficient: policy.backoffCoefficient } : {}),
  };
  // A model call has no side effects: a stopped run need not wait for it to wind down.
  const cancellationType = ActivityCancellationType.TRY_CANCEL;
  const remote = proxyActivities<Activities>({ startToCloseTimeout, cancellationType, heartbeatTimeout: '20s', retry });
  const local = proxyLocalActivities<Activities>({ startToCloseTimeout, cancellationType, retry });
  return {
    callModel: remote.callModel,
    callModelLocally: local.callModel,
    summarize: remote.summarize,
    critique: remote.critique,
  };
}

/**
 * Share of the workflow task timeout, from the task's start, by which an opening call must be done: well before the
 * SDK heartbeats the task at 80% (an engine action each).
 */
const OPENING_SHARE = 0.6;
/** Less time than this share of the task timeout left for it, and the opening call is not tried. */
const OPENING_MIN_SHARE = 0.2;

/**
 * A new run's first thinking call as a local activity in its start's workflow task (prepareRun's `opensLocally`): one
 * attempt, done by {@link OPENING_SHARE} of the task timeout counted from the task's start (config check included),
 * or within the run's own call timeout if shorter, so it never holds the task into a heartbeat. Null when too little
 * of the task is left. A call that fails or runs out is made again as the activity.
 */
export function openingCall(policy: ModelCallPolicy | undefined, task: { taskStartMs: number }) {
  const { taskTimeoutMs } = workflowInfo();
  const leftMs = Math.floor(OPENING_SHARE * taskTimeoutMs - (Date.now() - task.taskStartMs));
  if (leftMs < OPENING_MIN_SHARE * taskTimeoutMs) return null;
  const policyMs = policy?.timeoutMs ?? MODEL_ACTIVITY_TIMEOUT_MS;
  const limitMs = Math.min(policyMs, leftMs);
  return proxyLocalActivities<Activities>({
    // Waiting for a free local-activity slot counts too.
    scheduleToCloseTimeout: limitMs,
    startToCloseTimeout: limitMs,
    cancellationType: ActivityCancellationType.TRY_CANCEL,
    retry: { maximumAttempts: 1 },
  }).callModel;
}

/** Tool runs: the defaults here are replaced per call by the tool's own timeout and retry policy. */
export const { runTool } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  // A tool may have side effects: a stopped run waits until the tool has really stopped.
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  heartbeatTimeout: '20s',
  retry: { maximumAttempts: 1 },
});

/** Tools declared `local: true`: the same activity and per-call options, run in the workflow's own worker. */
export const { runTool: runLocalTool } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { maximumAttempts: 1 },
});

/**
 * Looking up whether a call's effect happened (a tool's `reconcile`): a read, so retried freely, and remote so that a
 * lookup in flight when its worker dies is retried by another one.
 */
export const { reconcileTool } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  heartbeatTimeout: '20s',
  retry: { maximumAttempts: 3, initialInterval: '1s' },
});

/**
 * Catalog lookup of a continued run, as a local activity, which saves the run a task-queue round trip before its first
 * thought. Cheap and idempotent, so retried freely.
 */
export const { listTools: listToolsLocally } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

/**
 * A new run's first step: its config checked on the worker and its tools looked up, in one local activity. Cheap and
 * idempotent, so retried freely.
 */
export const { prepareRun } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

/**
 * A remote tool's arguments checked against its JSON Schema before its activity is scheduled: the
 * schema lives on this worker, and the other language's worker may not check them at all.
 */
export const { validateToolArgs: validateToolArgsLocally } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});

/** Re-validation of arguments a person edited: the tool's schema lives on the worker. */
export const { validateToolArgs } = proxyActivities<Activities>({
  startToCloseTimeout: '30s',
  retry: { maximumAttempts: 5 },
});
