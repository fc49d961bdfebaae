import { z } from 'zod';
import { parseDuration } from './duration';
import { modelSettingsFields } from './model-settings';

// Field schemas the run's config is built from, kept apart so the config's own file stays one list of fields.

export const positiveInt = (max: number) => z.number().int().min(1).max(max);

/**
 * A named helper agent the main agent can delegate a task to; it runs as a child workflow. Its model settings, like
 * its model, default to the run's.
 */
export const subagentSchema = z.strictObject({
  ...modelSettingsFields,
  description: z.string().min(1),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string().min(1)).max(500).optional(),
  maxIterations: positiveInt(100_000).optional(),
  model: z.string().min(1).optional(),
  timeoutSeconds: z
    .number()
    .positive()
    .max(365 * 24 * 3600)
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
