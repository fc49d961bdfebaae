import { z } from 'zod';
import { duration, modelCallPolicySchema } from '../shared/config-fields';
import type { WorkerTerms } from '../shared/types';
import { parseDuration } from '../shared/duration';
import { formatZodIssues } from '../shared/validation';

/**
 * How this worker's runs make their model calls (the plugin's `modelCalls`). Worker tuning, not a run's choice: a
 * fast local model wants short timeouts and local activities, a slow hosted one long timeouts and patient retries,
 * whoever starts the run. Each run records what its worker said when it started, so a later change to the worker's
 * tuning does not change how a recorded run replays.
 */
export const modelCallOptionsSchema = z.strictObject({
  /**
   * Thinking calls as local activities in the workflow's worker: no task-queue round trips, same timeout and retries
   * (summaries and the critic stay activities). For fast models: a call cut short by a worker crash is made again, and
   * a long one holds the workflow task open. A run that streams still makes its calls as activities.
   */
  local: z.boolean().optional(),
  /**
   * A new run's first thinking call may be a local activity in the workflow task that checks the run's config, billed
   * with it as one engine action, when this worker's recent calls to the model were quick (default true; see
   * model-latency.ts). `false` keeps every call an activity.
   */
  openLocally: z.boolean().optional(),
  /** One attempt's time limit (default 90 s); the openai client's own timeout is set to two thirds of it. */
  timeout: duration
    // Below 2 s the request's own timeout (two thirds) could not fail inside the attempt as a retryable error.
    .refine((value) => (parseDuration(value) ?? 0) >= 2000, 'at least 2s')
    .optional(),
  /** Attempts per call before the run fails with the last error (default 6). */
  maximumAttempts: z.number().int().min(1).max(1000).optional(),
  /** First retry's delay (default 1 s), multiplied by `backoffCoefficient` (default 2) up to `maximumInterval` (60 s). */
  initialInterval: duration.optional(),
  maximumInterval: duration.optional(),
  backoffCoefficient: z.number().min(1).max(10).optional(),
});

/** The plugin's `modelCalls` option as written. */
export type ModelCallOptions = z.input<typeof modelCallOptionsSchema>;

/** What a worker records with each run it starts: where its model calls run, and their policy. */
export interface RunTuning extends Omit<WorkerTerms, 'pricing'> {
  /** Whether a new run's first call may open locally (`modelCalls.openLocally`); the run records the verdict, not this. */
  openLocally?: boolean;
}

/** The plugin's tuning options, checked: a bad value fails the worker's construction with one line. */
export function runTuningOf(modelCalls: ModelCallOptions | undefined, runAhead: boolean | undefined): RunTuning {
  const parsed = modelCallOptionsSchema.safeParse(modelCalls ?? {});
  if (!parsed.success) throw new TypeError(`Invalid modelCalls option: ${formatZodIssues(parsed.error.issues)}`);
  const { local, openLocally, timeout, initialInterval, maximumInterval, ...rest } = parsed.data;
  // Whole milliseconds: the policy is recorded with each run and checked again as part of its subagents' configs.
  const ms = (value: number | string | undefined) =>
    value === undefined ? undefined : Math.ceil(parseDuration(value) ?? 0);
  const policy = modelCallPolicySchema.parse(
    Object.fromEntries(
      Object.entries({
        timeoutMs: ms(timeout),
        initialIntervalMs: ms(initialInterval),
        maximumIntervalMs: ms(maximumInterval),
        ...rest,
      }).filter(([, value]) => value !== undefined),
    ),
  );
  return {
    modelCalls: local ? 'local' : 'activity',
    runAhead: runAhead ?? true,
    ...(Object.keys(policy).length > 0 ? { modelCallPolicy: policy } : {}),
    ...(openLocally === false ? { openLocally } : {}),
  };
}

/** The openai client's request timeout under a policy: inside the attempt, so a hung request fails as retryable. */
export function requestTimeoutMs(tuning: RunTuning): number | undefined {
  const timeoutMs = tuning.modelCallPolicy?.timeoutMs;
  return timeoutMs === undefined ? undefined : Math.round((timeoutMs * 2) / 3);
}
