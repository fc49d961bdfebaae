import v8 from 'node:v8';

/*
 * Confirmation rules run in the workflow sandbox, schema patterns run in activities, and both meet text the model
 * (or a prompt injection) controls. A backtracking pattern there can pin a core for minutes: the workflow task times
 * out over and over (or the sandbox's interrupt crashes the process), /healthz stops answering and shutdown stalls.
 * V8 can switch a regex to its linear-time engine once backtracking passes a bound; the flag is process-wide, so the
 * workflow threads get it too, and the result of a match does not change, only its cost. Patterns the linear engine
 * cannot run are refused where they are declared (`linearPattern` in src/shared/regex-safety.ts).
 */

let enabled = false;

/** Turns on V8's linear-time fallback for this process (idempotent); a worker calls it before it runs anything. */
export function useLinearTimeRegexFallback(): void {
  if (enabled) return;
  v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
  // Also the engine's own `l` flag, with which the worker asks V8 whether a pattern can run in linear time at all
  // (linearPattern); it changes nothing for patterns without the flag.
  v8.setFlagsFromString('--enable-experimental-regexp-engine');
  enabled = true;
}
