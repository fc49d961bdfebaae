import { errorMessage } from '../../shared/errors';
/**
 * Which of a tool's errors another attempt could fix: an error class (the error is an instance of it), a string (the
 * error's `name`, a class name in its prototype chain, or its `code`, e.g. 'ECONNRESET') or a RegExp (tested on the
 * message). Strings match names, never message text: callers branch on a stable name.
 */
export type RetryableErrorMatcher = string | RegExp | (abstract new (...args: never[]) => Error);

/** A matcher list that is empty or holds something else fails at start-up: a typo must not make every error permanent. */
export function checkRetryableErrors(tool: string, matchers: readonly unknown[]): void {
  if (matchers.length === 0) {
    throw new TypeError(`Tool "${tool}": retryableErrors is empty; leave it out to retry every error`);
  }
  for (const matcher of matchers) {
    if (typeof matcher === 'string' ? matcher.trim() === '' : !(matcher instanceof RegExp || isErrorClass(matcher))) {
      throw new TypeError(`Tool "${tool}": retryableErrors takes error classes, error names or RegExps of messages`);
    }
  }
}

function isErrorClass(value: unknown): value is abstract new (...args: never[]) => Error {
  return typeof value === 'function' && (value === Error || value.prototype instanceof Error);
}

/** The names an error answers to: its own `name`, the classes it descends from, and a Node-style `code`. */
function namesOf(error: unknown): Set<string> {
  const names = new Set<string>();
  if (typeof error !== 'object' || error === null) return names;
  const { name, code } = error as { name?: unknown; code?: unknown };
  if (typeof name === 'string') names.add(name);
  if (typeof code === 'string') names.add(code);
  for (let proto: unknown = Object.getPrototypeOf(error); proto; proto = Object.getPrototypeOf(proto)) {
    const constructorName = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof constructorName === 'string' && constructorName !== 'Object') names.add(constructorName);
  }
  return names;
}

/**
 * Whether another attempt may fix `error`: any error when the tool lists no matchers (the behaviour before tools
 * could say), otherwise only an error one of them matches; the rest are permanent and fail on their first attempt.
 */
export function isRetryableError(matchers: readonly RetryableErrorMatcher[] | undefined, error: unknown): boolean {
  if (matchers === undefined) return true;
  const message = errorMessage(error);
  return matchers.some((matcher) => {
    if (typeof matcher === 'string') return namesOf(error).has(matcher);
    if (matcher instanceof RegExp) {
      // A global or sticky RegExp keeps state between tests; a fresh lastIndex makes each test independent.
      matcher.lastIndex = 0;
      return matcher.test(message);
    }
    return error instanceof matcher;
  });
}
