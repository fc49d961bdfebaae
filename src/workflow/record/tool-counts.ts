/**
 * Per-tool counters keyed by names the model chose. A plain object would answer `counts['constructor']` with
 * Object.prototype.constructor and silently drop a write to `counts['__proto__']`, so every read checks for an own
 * property and every write defines one. The counters stay plain objects, so they serialize as ordinary JSON.
 */

/** The count stored under `key`, ignoring anything inherited from Object.prototype. */
export function ownCount(counts: Readonly<Record<string, number>>, key: string): number {
  return Object.prototype.hasOwnProperty.call(counts, key) ? (counts[key] ?? 0) : 0;
}

/** The entry of a model-keyed record, ignoring anything inherited from Object.prototype. */
export function ownEntry<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined;
}

/** Adds `delta` to the count under `key`; defined rather than assigned so `__proto__` is an ordinary key. */
export function addCount(counts: Record<string, number>, key: string, delta: number): void {
  Object.defineProperty(counts, key, {
    value: ownCount(counts, key) + delta,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
