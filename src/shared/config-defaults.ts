import type { ResolvedConfig } from './config';
import { DEFAULT_SYSTEM_PROMPT, DEFAULT_THOUGHT_PROMPT } from './default-prompts';

// Zod-free: the workflow fills these into a continued run's carried config, and zod stays out of the workflow
// bundle (each cached run held its own copy). test/unit/config.test.ts holds these to the config schema's.

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
/** Thoughts shorter than this many characters are sent back (see `requireThought`). */
export const DEFAULT_MIN_THOUGHT_LENGTH = 15;
/** Text-protocol tags. */
export const DEFAULT_THOUGHT_TAG = 'Thought:';
export const DEFAULT_ACTION_TAG = 'Action:';
export const DEFAULT_OBSERVATION_TAG = 'Observation:';

/** Steps one run records before it continues-as-new (sooner when the server suggests it). */
export const DEFAULT_MAX_STEPS_PER_RUN = 100;
/** Latest steps carried into the next run for the model to see. */
export const DEFAULT_CARRY_STEPS = 10;

/** How long a pending call or question waits for a person before `onApprovalTimeout` applies. */
export const DEFAULT_APPROVAL_TIMEOUT = '24h';

/** Every default of the config schema: what `validateAgentConfig({})` returns. */
export const CONFIG_DEFAULTS = {
  maxIterations: DEFAULT_MAX_ITERATIONS,
  thoughtPrompt: DEFAULT_THOUGHT_PROMPT,
  requireThought: 'auto',
  minThoughtLength: DEFAULT_MIN_THOUGHT_LENGTH,
  thoughtTag: DEFAULT_THOUGHT_TAG,
  actionTag: DEFAULT_ACTION_TAG,
  observationTag: DEFAULT_OBSERVATION_TAG,
  enableScratchpad: true,
  successPhrases: [],
  failurePhrases: [],
  stallThreshold: DEFAULT_STALL_THRESHOLD,
  maxObservationTokens: DEFAULT_MAX_OBSERVATION_TOKENS,
  maxToolCallsPerReply: DEFAULT_MAX_TOOL_CALLS_PER_REPLY,
  maxCallsPerTool: {},
  stopWhen: [],
  forceFinalAnswer: true,
  systemPrompt: DEFAULT_SYSTEM_PROMPT,
  toolCalling: 'native',
  stream: false,
  modelCalls: 'activity',
  runAhead: true,
  requireConfirmation: [],
  skipConfirmation: [],
  approvalTimeout: DEFAULT_APPROVAL_TIMEOUT,
  onApprovalTimeout: 'reject',
  approvers: {},
  requireSigned: false,
  onBudget: 'stop',
  allowClarification: true,
  maxStepsPerRun: DEFAULT_MAX_STEPS_PER_RUN,
  carrySteps: DEFAULT_CARRY_STEPS,
  critic: false,
  outputMode: 'simple',
  subagents: {},
} as const satisfies Partial<ResolvedConfig>;

/**
 * A config with the schema's defaults filled in, unchecked: for runs recorded before clients sent resolved configs,
 * whose configs were checked when they started. New runs are checked by the worker (`prepareRun`).
 */
export function withConfigDefaults(config: Partial<ResolvedConfig>): ResolvedConfig {
  const set = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  // A copy per run: the defaults' arrays and records must never be shared between runs.
  const defaults = JSON.parse(JSON.stringify(CONFIG_DEFAULTS)) as ResolvedConfig;
  return Object.assign(defaults, set);
}
