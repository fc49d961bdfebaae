import { DEFAULT_TASK_TIMEOUT_MS } from '../shared/cost';

/**
 * How fast this worker's recent model calls answered, per model: what decides whether a new run's first call may join
 * the workflow task that checks its config (see `opensLocally` in prepare-run.ts). A local activity that holds its
 * task past the SDK's heartbeat point (80% of the task timeout, 8 s of the default 10 s) costs an engine action for
 * each heartbeat, so only a model this worker has seen answer well within it is asked that way.
 */

/** Calls remembered per model: the slowest of them decides. */
export const LATENCY_SAMPLES = 5;
/** A call older than this says nothing of the model now: a worker left idle starts cautious again. */
export const SAMPLE_MAX_AGE_MS = 10 * 60_000;
/** Slowest recent call, as a share of the run's workflow task timeout, that still lets a first call open locally. */
export const OPEN_LOCALLY_SHARE = 0.4;

interface Sample {
  ms: number;
  atMs: number;
}

export class ModelLatency {
  private readonly recent = new Map<string, Sample[]>();

  constructor(private readonly now: () => number = Date.now) {}

  /** One model call that answered, in `ms`. */
  record(model: string, ms: number): void {
    const samples = this.recent.get(model) ?? [];
    samples.push({ ms, atMs: this.now() });
    if (samples.length > LATENCY_SAMPLES) samples.shift();
    this.recent.set(model, samples);
  }

  /**
   * One that failed or was cut short (an error, a timeout, a cancellation): a model that has begun to fail must not
   * be asked in a way that holds a workflow task open while it does.
   */
  recordFailure(model: string): void {
    this.record(model, Number.POSITIVE_INFINITY);
  }

  /**
   * Whether a call to `model` can be expected to answer well within a workflow task of `taskTimeoutMs`: only once this
   * worker has seen its last {@link LATENCY_SAMPLES} calls, all in the last {@link SAMPLE_MAX_AGE_MS}, each answer
   * within {@link OPEN_LOCALLY_SHARE} of it. A worker that has not (it just started, it was idle, or it makes no
   * model calls of its own) says no, which is how every run started before.
   */
  answersQuickly(model: string, taskTimeoutMs = DEFAULT_TASK_TIMEOUT_MS): boolean {
    const samples = this.recent.get(model) ?? [];
    const within = OPEN_LOCALLY_SHARE * taskTimeoutMs;
    const since = this.now() - SAMPLE_MAX_AGE_MS;
    return samples.length >= LATENCY_SAMPLES && samples.every((sample) => sample.ms <= within && sample.atMs >= since);
  }
}
