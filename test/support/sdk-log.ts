/**
 * Where the Temporal SDK's log lines go in tests: a file per run under .data/test-logs (gitignored), with only
 * ERROR lines also on stderr. Many tests provoke failures on purpose, and the worker warns about each one ("Activity
 * failed"); on the console those expected warnings buried the report.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { formatWithOptions } from 'node:util';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogEntry } from '@temporalio/worker';
import { expect } from 'vitest';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** This run's SDK log file (see {@link provideTestLogFile}). */
    testLogFile: string;
  }
}

/** The folder of the per-run log files. */
export const TEST_LOGS_DIR = path.resolve(__dirname, '../../.data/test-logs');
// Enough runs to compare a failing one with the last good one, without the folder growing forever.
const KEPT_RUNS = 10;

/** Makes this run's log file name (global set-up, once a run) and deletes all but the newest runs' files. */
export function newTestLogFile(now = new Date()): string {
  mkdirSync(TEST_LOGS_DIR, { recursive: true });
  const old = readdirSync(TEST_LOGS_DIR)
    .filter((name) => name.endsWith('.log'))
    .sort()
    .slice(0, -(KEPT_RUNS - 1));
  for (const name of old) rmSync(path.join(TEST_LOGS_DIR, name), { force: true });
  // The timestamp sorts by name, which the pruning above relies on; the pid keeps parallel runs apart.
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  return path.join(TEST_LOGS_DIR, `${stamp}-${process.pid}.log`);
}

let runLogFile: string | undefined;

/**
 * For a global set-up: hands this run's log file to the test files (`inject('testLogFile')`) and returns a teardown
 * step that says where the file is when anything was logged. The dev and cluster projects of one run share the file.
 */
export function provideTestLogFile(project: TestProject): () => void {
  const file = (runLogFile ??= newTestLogFile());
  project.provide('testLogFile', file);
  return () => {
    if (!existsSync(file)) return;
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => /^\S+ \[(WARN|ERROR)\]/.test(line));
    console.log(`[sdk-log] ${lines.length} SDK warning and error lines of this run are in ${file}`);
  };
}

/** The test that is running in this worker process when a line is logged, so the file says whose warning it is. */
function currentTest(): string {
  const { testPath, currentTestName } = expect.getState();
  if (!testPath) return '';
  const file = path.relative(path.resolve(__dirname, '../..'), testPath);
  return currentTestName ? ` (${file} > ${currentTestName})` : ` (${file})`;
}

const plain = formatWithOptions.bind(undefined, { colors: false, depth: 6 });

/** A logger that appends WARN and above to `file` and also writes ERROR lines to stderr. */
export function fileLogger(file: string): DefaultLogger {
  return new DefaultLogger('WARN', (entry: LogEntry) => {
    const date = new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString();
    const meta = entry.meta === undefined ? '' : ` ${plain(entry.meta)}`;
    const line = `${date} [${entry.level}]${currentTest()} ${entry.message}${meta}\n`;
    appendFileSync(file, line);
    if (entry.level === 'ERROR') process.stderr.write(line);
  });
}

/**
 * Installs the SDK runtime of a test worker process with {@link fileLogger}; the core's own (Rust) log lines are
 * forwarded to the same logger instead of going to the console.
 */
export function installTestRuntime(file: string): void {
  Runtime.install({
    logger: fileLogger(file),
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) } },
  });
}
