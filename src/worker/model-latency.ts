/**
 * How fast this worker's recent model calls answered, per model: what decides whether a new run's first call may join
 * the workflow task that checks its config (see `opensLocally` in prepare-run.ts). A local activity that holds its
 * task past the SDK's heartbeat point (80% of the task timeout, 8 s of the default 10 s) costs an engine action for
 * each heartbeat, so only a model this worker has seen answer well within it is asked that way.
 */

/** Calls remembered per model: the slowest of them decides. */
export const LATENCY_SAMPLES = 5;
/** Slowest recent call, as a share of the run's workflow task timeout, that still lets a first call open locally. */
export const OPEN_LOCALLY_SHARE = 0.4;
/** Workflow tasks time out after 10 s unless the run's start said otherwise: calls within 4 s open locally. */
export const DEFAULT_TASK_TIMEOUT_MS = 10_000;

export class ModelLatency {
  private readonly recent = new Map<string, number[]>();

  /** One model call that answered (a failed or cancelled one says nothing about how fast the model answers). */
  record(model: string, ms: number): void {
    const samples = this.recent.get(model) ?? [];
    samples.push(ms);
    if (samples.length > LATENCY_SAMPLES) samples.shift();
    this.recent.set(model, samples);
  }

  /**
   * Whether a call to `model` can be expected to answer well within a workflow task of `taskTimeoutMs`: only once this
   * worker has seen {@link LATENCY_SAMPLES} calls answer, every one of them within {@link OPEN_LOCALLY_SHARE} of it.
   * A worker that has not (it just started, or it makes no model calls of its own) says no, which is how every run
   * started before.
   */
  answersQuickly(model: string, taskTimeoutMs = DEFAULT_TASK_TIMEOUT_MS): boolean {
    const samples = this.recent.get(model) ?? [];
    const within = OPEN_LOCALLY_SHARE * taskTimeoutMs;
    return samples.length >= LATENCY_SAMPLES && samples.every((ms) => ms <= within);
  }
}
