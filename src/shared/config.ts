import { z } from 'zod';
import { parseDuration } from './duration';
import { compileJsonSchema } from './json-schema';
import { parseSignature } from './signature';
import { formatZodIssues } from './validation';

/** Default cap on model calls per run. */
export const DEFAULT_MAX_ITERATIONS = 10;
/** The same calls (tool + normalised arguments) in this many iterations in a row end the run as `stalled`. */
export const DEFAULT_STALL_THRESHOLD = 3;
/** Observations longer than this (estimated tokens) are truncated before the model sees them. */
export const DEFAULT_MAX_OBSERVATION_TOKENS = 2000;
/** Thoughts shorter than this many characters are sent back when `requireThought` is on. */
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

/** The seed's thought template: what is known, what is missing, the next step, and which tool. */
export const DEFAULT_THOUGHT_PROMPT = [
  'Before every action, think step by step and write your reasoning:',
  '1. What do I know so far?',
  '2. What information is still missing?',
  '3. What is the next logical step?',
  '4. Which tool (if any) gives me that, and with which arguments?',
  'When you have enough information, give the final answer instead of calling a tool.',
].join('\n');

/** The default system prompt; the tool catalog and protocol instructions are appended to it. */
export const DEFAULT_SYSTEM_PROMPT =
  'You are a careful assistant that solves tasks by reasoning and acting. ' +
  'Use the available tools to gather facts instead of guessing, and answer concisely.';

const stopCondition = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('observation_contains'),
    text: z.string().min(1),
    /** Only observations of this tool count. */
    tool: z.string().min(1).optional(),
  }),
  z.strictObject({ type: z.literal('tool_called'), tool: z.string().min(1) }),
  z.strictObject({ type: z.literal('thought_contains'), text: z.string().min(1) }),
]);

/** A declarative custom stop condition; when one matches, the run ends with reason `custom`. */
export type StopCondition = z.infer<typeof stopCondition>;

const positiveInt = (max: number) => z.number().int().min(1).max(max);

/** A named helper agent the main agent can delegate a task to; it runs as a child workflow. */
const subagentSchema = z.strictObject({
  description: z.string().min(1),
  systemPrompt: z.string().optional(),
  tools: z.array(z.string().min(1)).max(500).optional(),
  maxIterations: positiveInt(100_000).optional(),
  model: z.string().min(1).optional(),
  timeoutSeconds: z.number().positive().max(365 * 24 * 3600).optional(),
});

/** A subagent's definition. */
export type SubagentConfig = z.infer<typeof subagentSchema>;
const duration = z
  .union([z.number(), z.string()])
  .refine((value) => parseDuration(value) !== null, 'expected seconds (a number) or a duration like "30m", "24h", "7d"');
const phrases = z.array(z.string().min(1)).max(100);

/** The one schema for a run's configuration. Unknown fields are refused so typos surface before a run starts. */
export const agentConfigSchema = z.strictObject({
  maxIterations: positiveInt(100_000).default(DEFAULT_MAX_ITERATIONS),
  thoughtPrompt: z.string().default(DEFAULT_THOUGHT_PROMPT),
  requireThought: z.boolean().default(true),
  minThoughtLength: z.number().int().min(0).max(10_000).default(DEFAULT_MIN_THOUGHT_LENGTH),
  thoughtTag: z.string().min(1).default(DEFAULT_THOUGHT_TAG),
  actionTag: z.string().min(1).default(DEFAULT_ACTION_TAG),
  observationTag: z.string().min(1).default(DEFAULT_OBSERVATION_TAG),
  enableScratchpad: z.boolean().default(true),
  successPhrases: phrases.default([]),
  failurePhrases: phrases.default([]),
  stallThreshold: z.number().int().min(2).max(1000).default(DEFAULT_STALL_THRESHOLD),
  maxObservationTokens: z.number().int().min(16).max(1_000_000).default(DEFAULT_MAX_OBSERVATION_TOKENS),
  tokenBudget: positiveInt(1_000_000_000).optional(),
  timeoutSeconds: z.number().positive().max(365 * 24 * 3600).optional(),
  maxCallsPerTool: z.record(z.string().min(1), z.number().int().min(0)).default({}),
  stopWhen: z.array(stopCondition).max(100).default([]),
  forceFinalAnswer: z.boolean().default(true),
  tools: z.array(z.string().min(1)).max(500).optional(),
  systemPrompt: z.string().default(DEFAULT_SYSTEM_PROMPT),
  model: z.string().min(1).optional(),
  toolCalling: z.enum(['native', 'text']).default('native'),
  /**
   * 'local' runs the thinking calls (one per iteration) as local activities in the workflow's worker: no task-queue
   * round trips, so a fast model's step costs milliseconds instead of tens. A call cut short by a worker crash is
   * made again, and a long call holds the workflow task open (queries and signals wait for its heartbeat). Summaries,
   * the critic and observation condensing stay activities.
   */
  modelCalls: z.enum(['activity', 'local']).default('activity'),
  requireConfirmation: z.array(z.string().min(1)).max(500).default([]),
  skipConfirmation: z.array(z.string().min(1)).max(500).default([]),
  approvalTimeout: duration.default(DEFAULT_APPROVAL_TIMEOUT),
  onApprovalTimeout: z.enum(['reject', 'end']).default('reject'),
  allowClarification: z.boolean().default(true),
  maxStepsPerRun: z.number().int().min(2).max(10_000).default(DEFAULT_MAX_STEPS_PER_RUN),
  carrySteps: z.number().int().min(0).max(1000).default(DEFAULT_CARRY_STEPS),
  summaryEvery: positiveInt(10_000).optional(),
  summarizeObservationsOver: positiveInt(10_000_000).optional(),
  critic: z.boolean().default(false),
  signature: z
    .string()
    .superRefine((value, context) => {
      const parsed = parseSignature(value);
      if (typeof parsed === 'string') context.addIssue({ code: 'custom', message: parsed });
    })
    .optional(),
  outputSchema: z
    .record(z.string(), z.unknown())
    .superRefine((value, context) => {
      // Checked here so a bad schema is refused before the run starts, not when the first answer arrives.
      const compiled = compileJsonSchema(value);
      if (typeof compiled === 'string') context.addIssue({ code: 'custom', message: compiled });
    })
    .optional(),
  outputMode: z.enum(['simple', 'structured']).default('simple'),
  subagents: z.record(z.string().regex(/^[a-zA-Z][\w-]{0,63}$/, 'a subagent name is letters, digits, _ or -'), subagentSchema).default({}),
});

/** Configuration as callers write it: every field optional. */
export type AgentConfigInput = z.input<typeof agentConfigSchema>;
/** Configuration with defaults applied. */
export type AgentConfig = z.output<typeof agentConfigSchema>;

/** Outcome of validating a config: either the parsed config or one line listing every bad field. */
export type ConfigValidation = { ok: true; config: AgentConfig } | { ok: false; message: string };

/** Validates a config and renders all problems on one line, e.g. `maxIterations: expected number, received string`. */
export function validateAgentConfig(input: unknown): ConfigValidation {
  const parsed = agentConfigSchema.safeParse(input ?? {});
  if (parsed.success) return { ok: true, config: parsed.data };
  return { ok: false, message: `Invalid agent config: ${formatZodIssues(parsed.error.issues)}` };
}
