// Zod-free: the workflow reads some of these (zod stays out of the workflow bundle, where each cached run held its own
// copy).

export { DEFAULT_SYSTEM_PROMPT, DEFAULT_THOUGHT_PROMPT } from './default-prompts';

/** Default cap on model calls per run. */
export const DEFAULT_MAX_ITERATIONS = 10;
/**
 * The same calls (tool + normalised arguments) in this many iterations in a row end the run as `stalled`; from rule
 * set 7 so do nearly the same calls and short cycles (see stall.ts).
 */
export const DEFAULT_STALL_THRESHOLD = 3;
/** Tool calls one reply may make: parallel calls are a handful; thousands would hold a workflow task for minutes. */
export const DEFAULT_MAX_TOOL_CALLS_PER_REPLY = 16;
/** Observations longer than this (estimated tokens) are truncated before the model sees them. */
export const DEFAULT_MAX_OBSERVATION_TOKENS = 2000;
/** Thoughts shorter than this many characters are sent back (see `thoughts.require`). */
export const DEFAULT_MIN_THOUGHT_LENGTH = 15;
/** Text-protocol tags. */
export const DEFAULT_THOUGHT_TAG = 'Thought:';
export const DEFAULT_ACTION_TAG = 'Action:';
export const DEFAULT_OBSERVATION_TAG = 'Observation:';

/** Steps one run records before it continues-as-new (sooner when the server suggests it). */
export const DEFAULT_MAX_STEPS_PER_RUN = 100;
/** Latest steps carried into the next run for the model to see. */
export const DEFAULT_CARRY_STEPS = 10;

/** How long a pending call or question waits for a person before `approvals.onTimeout` applies. */
export const DEFAULT_APPROVAL_TIMEOUT = '24h';
