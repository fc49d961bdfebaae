/*
 * Requests and waits under a caller's abort signal without leaving a listener on it per request. The SDK's
 * `withAbortSignal` adds an `abort` listener to the signal for each RPC and never removes it, so a follower that
 * long-polls for hours under one signal collected thousands (Node warns past 10), each holding its finished call.
 */

/** What can run a request under an abort signal: a Temporal `Client` or `Connection`. */
export interface AbortSignalScope {
  withAbortSignal<R>(signal: AbortSignal, fn: () => Promise<R>): Promise<R>;
}

/**
 * Runs `request` under a signal of its own that `signal` aborts; the link is removed when the request settles, so the
 * caller's signal keeps no listener for it. Without a signal, runs `request` as it is.
 */
export async function abortable<T>(
  scope: AbortSignalScope,
  signal: AbortSignal | undefined,
  request: () => Promise<T>,
): Promise<T> {
  if (!signal) return request();
  const own = new AbortController();
  const forward = (): void => own.abort(signal.reason);
  if (signal.aborted) own.abort(signal.reason);
  else signal.addEventListener('abort', forward, { once: true });
  try {
    return await scope.withAbortSignal(own.signal, request);
  } finally {
    signal.removeEventListener('abort', forward);
  }
}

/** Waits `ms`, or less when `signal` aborts; the listener goes when the wait ends either way. */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}
