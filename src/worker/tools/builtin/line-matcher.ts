import { Worker } from 'node:worker_threads';
import { ToolInputError } from '../define-tool';
import { errorMessage } from '../../../shared/errors';

/** Default wall-clock time one grep_search may spend matching a regex, over all the files it reads. */
export const DEFAULT_REGEX_TIME_LIMIT_MS = 5_000;

/** Finds the lines of a text that match; at most `limit` line indexes (0-based), in order. */
export interface LineMatcher {
  matchingLines(text: string, limit: number): Promise<number[]>;
  close(): Promise<void>;
}

/** Splits the way grep_search reports line numbers: `\n` or `\r\n`. */
export function splitLines(text: string): string[] {
  return text.split(/\r?\n/);
}

/** A plain substring search on the calling thread: linear in the text, so nothing to guard. */
export function literalMatcher(pattern: string, ignoreCase: boolean): LineMatcher {
  const needle = ignoreCase ? pattern.toLowerCase() : pattern;
  return {
    matchingLines: async (text, limit) => {
      const hits: number[] = [];
      const lines = splitLines(text);
      for (let index = 0; index < lines.length && hits.length < limit; index++) {
        const line = ignoreCase ? lines[index]!.toLowerCase() : lines[index]!;
        if (line.includes(needle)) hits.push(index);
      }
      return hits;
    },
    close: async () => {},
  };
}

// The thread runs this source as given: a file path would not survive bundling the worker, or running it from .ts.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const regex = new RegExp(workerData.pattern, workerData.flags);
parentPort.on('message', ({ text, limit }) => {
  const lines = text.split(/\\r?\\n/);
  const hits = [];
  for (let index = 0; index < lines.length && hits.length < limit; index++) {
    if (regex.test(lines[index])) hits.push(index);
  }
  parentPort.postMessage(hits);
});
`;

/**
 * A JavaScript regex run on a thread of its own under a deadline. Activities share the worker's event loop: one
 * backtracking pattern (`^(a+)+$` on a line of a's) would otherwise stall every run on the worker, its /healthz and its
 * shutdown. When the time is up the thread is terminated (V8 interrupts the regex) and the call is refused.
 */
export function regexMatcher(
  pattern: string,
  ignoreCase: boolean,
  timeLimitMs: number,
  signal?: AbortSignal,
): LineMatcher {
  const flags = ignoreCase ? 'i' : '';
  try {
    // Compiling is cheap and cannot backtrack: a bad pattern is reported here, before a thread is started.
    new RegExp(pattern, flags);
  } catch (error) {
    const reason = errorMessage(error);
    throw new ToolInputError(`invalid regular expression "${pattern}": ${reason}`, { cause: error });
  }
  const thread = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { pattern, flags },
    // Lines of a 1 MiB file need little; a runaway thread must not take the worker's memory with it.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
  let remainingMs = timeLimitMs;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await thread.terminate();
  };

  const matchingLines = (text: string, limit: number) =>
    new Promise<number[]>((resolve, reject) => {
      if (closed) return reject(new Error('grep_search: the regex thread is closed'));
      const started = Date.now();
      const settle = (outcome: () => void) => {
        clearTimeout(timer);
        thread.off('message', onMessage).off('error', onError).off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const onMessage = (hits: number[]) =>
        settle(() => {
          remainingMs -= Date.now() - started;
          resolve(hits);
        });
      const onError = (error: Error) => settle(() => reject(error));
      const onExit = () => settle(() => reject(new Error('grep_search: the regex thread stopped unexpectedly')));
      const onAbort = () =>
        settle(() => {
          const reason: unknown = signal?.reason;
          void close().then(() => reject(reason instanceof Error ? reason : new Error('grep_search was cancelled')));
        });
      const timer = setTimeout(
        () =>
          settle(() => {
            void close();
            reject(
              new ToolInputError(
                `pattern "${pattern}" took more than ${timeLimitMs / 1000} s to match and was stopped (it likely ` +
                  'backtracks: avoid nested repeats like (a+)+); use a simpler pattern, or regex: false',
              ),
            );
          }),
        Math.max(0, remainingMs),
      );
      thread.on('message', onMessage).on('error', onError).on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      thread.postMessage({ text, limit });
    });

  return { matchingLines, close };
}
