/**
 * Server settings for the embedded dev server, found by profiling (docs/benchmarks.md). Its history service reads
 * each task queue at most 20 times a second by default, a production per-shard limit that on a one-host server adds
 * ~50 ms to every workflow and activity task dispatch (about 200 ms per agent step). Eager activity execution hands
 * an activity to the worker in the reply to the workflow task that scheduled it, skipping matching altogether.
 */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, number | boolean>> = {
  'history.transferProcessorMaxPollRPS': 1000,
  'history.timerProcessorMaxPollRPS': 1000,
  'history.visibilityProcessorMaxPollRPS': 1000,
  'system.enableActivityEagerExecution': true,
};

/** {@link DEV_SERVER_DYNAMIC_CONFIG} as `temporal server start-dev` arguments (tests start their server with them too). */
export function devServerTuningArgs(): string[] {
  return Object.entries(DEV_SERVER_DYNAMIC_CONFIG).flatMap(([key, value]) => [
    '--dynamic-config-value',
    `${key}=${JSON.stringify(value)}`,
  ]);
}
