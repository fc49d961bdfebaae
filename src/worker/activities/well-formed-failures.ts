import { wellFormed } from '../../shared/well-formed';

/** Deepest chain of causes mended; a cycle or a pathological chain stops there. */
const MAX_CAUSES = 16;

/** Makes an error's message and stack, and its causes', well-formed text in place. */
function mend(error: unknown, depth = 0): void {
  if (!(error instanceof Error) || depth > MAX_CAUSES) return;
  error.message = wellFormed(error.message);
  if (error.stack !== undefined) error.stack = wellFormed(error.stack);
  mend(error.cause, depth + 1);
}

/**
 * The activities, each failing with well-formed text: a failure's message and stack travel as protocol-buffer
 * strings, which must be valid UTF-8, and a lone surrogate in a tool's or an endpoint's error text made the worker
 * fail to encode the completion and exit, once per retry. One wrapper, so no failure built from foreign text is missed.
 */
export function withWellFormedFailures<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  activities: T,
): T {
  const wrapped = Object.entries(activities).map(([name, activity]) => [
    name,
    async (...args: never[]) => {
      try {
        return await activity(...args);
      } catch (error) {
        mend(error);
        throw error;
      }
    },
  ]);
  return Object.fromEntries(wrapped) as T;
}
