import { readEnv } from '../common/env';

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

/**
 * How the embedded server's SQLite file commits. `fast` (the default) is WAL with `synchronous=NORMAL`, the mode
 * LangGraph's SQLite checkpointer uses: a commit waits for no fsync, so a step costs about a third less. A process
 * crash loses nothing; a machine crash or power cut may lose the last commits before the OS flushed them (the file
 * stays consistent). `strict` is SQLite's default (rollback journal, `synchronous=FULL`): every commit is on disk
 * before the server answers. Chosen with TEMPORAL_DEV_DURABILITY.
 */
export type DevServerDurability = 'fast' | 'strict';

/** The durability TEMPORAL_DEV_DURABILITY asks for (`fast` when unset); anything else is refused. */
export function devServerDurability(env: NodeJS.ProcessEnv = process.env): DevServerDurability {
  const value = readEnv(env).provisioning.devDurability ?? 'fast';
  if (value === 'fast' || value === 'strict') return value;
  throw new TypeError(`TEMPORAL_DEV_DURABILITY must be "fast" or "strict", got "${value}"`);
}

/** `temporal server start-dev` arguments for a durability mode (only a database file has a journal to set). */
export function devServerSqliteArgs(durability: DevServerDurability): string[] {
  // Both modes are set explicitly: WAL is a property of the file, so a file once opened in WAL would stay in it.
  const [journal, sync] = durability === 'fast' ? ['WAL', 'NORMAL'] : ['DELETE', 'FULL'];
  return ['--sqlite-pragma', `journal_mode=${journal}`, '--sqlite-pragma', `synchronous=${sync}`];
}
