import { z } from 'zod';
import { parseDuration } from './duration';
import { MAX_COMPLETION_TOKENS, REASONING_EFFORTS, TOOL_CHOICES } from './model-settings';

// Field schemas the run's config is built from, kept apart so the config's own file stays one list of fields.

/**
 * The model settings, as config fields: a run's, and each subagent's own. Every field is optional and, when unset,
 * left out of the request, so endpoints that do not know a setting never see it.
 */
export const modelSettingsFields = {
  temperature: z
    .number()
    .min(0)
    .max(2)
    .optional()
    .describe("sampling temperature of every thinking call (`temperature`); unset leaves the endpoint's default"),
  maxTokens: z
    .number()
    .int()
    .min(1)
    .max(MAX_COMPLETION_TOKENS)
    .optional()
    .describe(
      'most completion tokens one thinking call may use (`max_tokens`); with a `limits.tokenBudget`, the smaller of this and what the budget leaves',
    ),
  toolChoice: z
    .enum(TOOL_CHOICES)
    .optional()
    .describe(
      '`tool_choice` of calls that offer tools, native mode only: `required` makes every reply a call (the answer comes through the built-in `final_answer` tool); `none` allows no call at all, built-ins included, so the first reply is the answer',
    ),
  reasoningEffort: z
    .enum(REASONING_EFFORTS)
    .optional()
    .describe('how long a reasoning model thinks before each thinking reply (`reasoning_effort`)'),
  parallelToolCalls: z
    .boolean()
    .optional()
    .describe(
      '`parallel_tool_calls` of calls that offer tools, native mode only: `false` asks for at most one tool call per reply',
    ),
};

export const positiveInt = (max: number) => z.number().int().min(1).max(max);

/**
 * A named helper agent the main agent can delegate a task to; it runs as a child workflow. Its model settings, like
 * its model, default to the run's; its groups hold only what a helper sets for itself.
 */
export const subagentSchema = z.strictObject({
  description: z.string().min(1),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string().min(1)).max(500).optional(),
  model: z.string().min(1).optional(),
  modelSettings: z.strictObject(modelSettingsFields).optional(),
  limits: z
    .strictObject({
      maxIterations: positiveInt(100_000).optional(),
      timeoutSeconds: z
        .number()
        .positive()
        .max(365 * 24 * 3600)
        .optional(),
    })
    .optional(),
});

/** A subagent's definition. */
export type SubagentConfig = z.infer<typeof subagentSchema>;
/** Longest wait a config may ask for: a year, well inside what Temporal's timers accept. */
export const MAX_DURATION_MS = 365 * 24 * 3600 * 1000;
export const duration = z
  .union([z.number(), z.string()])
  .refine((value) => parseDuration(value) !== null, 'expected seconds (a number) or a duration like "30m", "24h", "7d"')
  // A timer the server refuses would fail the run's workflow task at the first wait, over and over.
  .refine((value) => (parseDuration(value) ?? 0) <= MAX_DURATION_MS, 'at most a year (365d)');

/**
 * How a run's model calls are made, as the worker's plugin set it when the run started (recorded with the run): the
 * activity's time limit and retry policy, in milliseconds. Unset fields keep src/workflow/activity-proxies.ts's.
 */
export const modelCallPolicySchema = z.strictObject({
  timeoutMs: positiveInt(MAX_DURATION_MS).optional(),
  maximumAttempts: positiveInt(1000).optional(),
  initialIntervalMs: positiveInt(MAX_DURATION_MS).optional(),
  maximumIntervalMs: positiveInt(MAX_DURATION_MS).optional(),
  backoffCoefficient: z.number().min(1).max(10).optional(),
});

/** A run's model-call policy (see {@link modelCallPolicySchema}). */
export type ModelCallPolicy = z.output<typeof modelCallPolicySchema>;
