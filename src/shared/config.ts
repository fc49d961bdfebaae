import { z } from 'zod';
import {
  DEFAULT_ACTION_TAG,
  DEFAULT_APPROVAL_TIMEOUT,
  DEFAULT_CARRY_STEPS,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_MAX_OBSERVATION_TOKENS,
  DEFAULT_MAX_STEPS_PER_RUN,
  DEFAULT_MAX_TOOL_CALLS_PER_REPLY,
  DEFAULT_MIN_THOUGHT_LENGTH,
  DEFAULT_OBSERVATION_TAG,
  DEFAULT_STALL_THRESHOLD,
  DEFAULT_SYSTEM_PROMPT,
  DEFAULT_THOUGHT_PROMPT,
  DEFAULT_THOUGHT_TAG,
} from './config-defaults';
import { duration, modelSettingsFields, positiveInt, subagentSchema } from './config-fields';
import { compileJsonSchema } from './json-schema';
import { parseSignature } from './signature';
import { stopConditionSchema } from './stop-conditions';
import { BUDGET_LIMIT_MAX } from './budget';

export type { StopCondition } from './stop-conditions';
export { MAX_DURATION_MS, subagentSchema, type ModelCallPolicy, type SubagentConfig } from './config-fields';

// The defaults live in a zod-free module, which the workflow imports; callers keep importing them from here.
export * from './config-defaults';

/** A group of fields: every field optional or defaulted, so a group left out resolves to its defaults. */
function group<const S extends z.core.$ZodLooseShape>(description: string, shape: S) {
  // Every field of a group is optional or defaulted, which the generic cannot show: `{}` is a valid input.
  return z
    .strictObject(shape)
    .prefault({} as never)
    .describe(description);
}

const modelSettings = group('how each thinking call is made: sampling settings, the tool-calling protocol, streaming', {
  ...modelSettingsFields,
  contextWindow: z
    .number()
    .int()
    .min(256)
    .max(100_000_000)
    .optional()
    .describe(
      'the model\'s context window in tokens (default: the published size for well-known `model` names, else 32,768). Before each call the prompt is estimated: one that would not fit is compacted (the oldest steps summarised, the newest kept), and when even that cannot fit the run stops with `token_budget` and a forced answer. A provider\'s own "context length" error teaches the run the real size',
    ),
  toolCalling: z
    .enum(['native', 'text'])
    .default('native')
    .describe('native tool calling, or the tagged text protocol for models without it'),
  stream: z
    .boolean()
    .default(false)
    .describe(
      "stream each thinking call's text to event subscribers while the model answers (`thought_delta` events, one signal per ~100 ms batch)",
    ),
  thoughtTag: z.string().min(1).default(DEFAULT_THOUGHT_TAG).describe('text-mode tag'),
  actionTag: z
    .string()
    .min(1)
    .default(DEFAULT_ACTION_TAG)
    .describe('text-mode tag; the arguments tag is derived from it (`Action Input:`)'),
  observationTag: z.string().min(1).default(DEFAULT_OBSERVATION_TAG).describe('text-mode tag; also the stop sequence'),
});

const thoughts = group('what the model is asked to think, and how a thought is checked', {
  prompt: z
    .string()
    .default(DEFAULT_THOUGHT_PROMPT)
    .describe('what do I know, what is missing, the next step, which tool'),
  require: z
    .union([z.boolean(), z.literal('auto')], { error: "expected true, false or 'auto'" })
    .default('auto')
    .describe(
      '`\'auto\'`: a call that comes with no thought at all (no text, no reasoning field, no `<think>` block: many models call tools that way) runs and is recorded with an empty thought; a thought that is given but too short or only restates the call ("Using the calculator.") is sent back once, never twice in a row. `true`: every call needs a real thought or is sent back. `false`: no checks',
    ),
  minLength: z
    .number()
    .int()
    .min(0)
    .max(10_000)
    .default(DEFAULT_MIN_THOUGHT_LENGTH)
    .describe('characters a thought needs when `thoughts.require` checks it'),
});

const limits = group('when a run stops, and what happens when it reaches a limit', {
  maxIterations: positiveInt(100_000)
    .default(DEFAULT_MAX_ITERATIONS)
    .describe('model calls before the run stops with `max_iterations`'),
  tokenBudget: positiveInt(1_000_000_000)
    .optional()
    .describe(
      "a hard cap on the run's tokens: every model call is capped with `max_tokens`, and the run stops with `token_budget` (keeping room for the forced final answer) before a call that would not fit",
    ),
  timeoutSeconds: z
    .number()
    .positive()
    .max(365 * 24 * 3600)
    .optional()
    .describe(
      'a durable timer; when it fires, in-flight activities are cancelled → `timeout`. The forced final answer then gets a slice of 10% of the budget, clamped to 5–60 s, and is cut short when it runs out',
    ),
  cost: z
    .number()
    .positive()
    .max(BUDGET_LIMIT_MAX.cost_budget)
    .optional()
    .describe(
      "a cap on the run's money in USD (its subagents' included), priced from the worker's `prices` for the run's model; checked before each model call → `cost_budget`, or a request to raise it with `limits.onReached: 'ask'`. A run whose model, or a subagent's, has no price is refused at start",
    ),
  maxToolCallsPerReply: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(DEFAULT_MAX_TOOL_CALLS_PER_REPLY)
    .describe(
      'tool calls one reply may make; a reply with more runs none of them and is sent back with feedback, so one reply cannot flood the run with work',
    ),
  maxCallsPerTool: z
    .record(z.string().min(1), z.number().int().min(0))
    .default({})
    .describe(
      "calls that would run past a tool's cap are refused with an observation; only calls that ran count (refused, rejected, answered and timed-out calls free their slot; see `trace.toolRuns`)",
    ),
  stallThreshold: z
    .number()
    .int()
    .min(2)
    .max(1000)
    .default(DEFAULT_STALL_THRESHOLD)
    .describe(
      "the same calls (tool + normalised arguments; a reply's calls as a set) in this many iterations in a row → " +
        '`stalled`; also nearly the same calls (a paraphrased query), or a cycle of 2 or 3 replies ' +
        'repeated this many − 1 iterations',
    ),
  onReached: z
    .enum(['stop', 'ask'])
    .default('stop')
    .describe(
      '`ask`: at `limits.maxIterations`, `limits.tokenBudget`, `limits.cost` or `limits.timeoutSeconds` the run waits (up to `approvals.timeout`) for a person to raise the limit or stop it, instead of stopping; no decision in time stops it as before',
    ),
});

const approvals = group('which calls wait for a person, who may decide them, and for how long', {
  require: z
    .array(z.string().min(1))
    .max(500)
    .default([])
    .describe('tools whose calls wait for a person in this run, whatever their own policy'),
  skip: z
    .array(z.string().min(1))
    .max(500)
    .default([])
    .describe(
      "tools whose calls never wait in this run (waives a rule-based policy; a tool declared `confirm: 'always'` cannot be waived: the run is refused at start)",
    ),
  timeout: duration
    .default(DEFAULT_APPROVAL_TIMEOUT)
    .describe('how long a pending call or question waits (a durable timer)'),
  onTimeout: z
    .enum(['reject', 'end'])
    .default('reject')
    .describe(
      'when `approvals.timeout` passes: tell the model no decision arrived, or end the run with reason `timeout`',
    ),
  approvers: z
    .record(z.string().min(1), z.array(z.string().trim().min(1)).min(1).max(100))
    .default({})
    .describe(
      "who may decide a tool's calls: identities, or `role:<name>`; anyone else (and anyone anonymous) is refused by the update, except to reject; the key `@budget` names who may raise a budget (`limits.onReached: 'ask'`; anyone may stop)",
    ),
  requireSigned: z
    .union([z.boolean(), z.array(z.string().min(1)).max(500)])
    .default(false)
    .describe(
      "decisions that must carry a signature from a key the worker trusts (the worker's `approvalKeys`, WORKER_APPROVAL_KEYS): `true` for every call, or a list of tools; the update refuses unsigned, expired, reused or mismatched decisions before they enter history, and refuses raw signals",
    ),
  clarification: z
    .boolean()
    .default(true)
    .describe('offer the built-in `request_clarification` action (the run waits for an `answer`)'),
});

const history = group('what the model sees of earlier steps, and how a long run is carried on', {
  scratchpad: z
    .boolean()
    .default(true)
    .describe("send every earlier step to the model; false sends only the latest reply's steps"),
  maxObservationTokens: z
    .number()
    .int()
    .min(16)
    // 100,000 tokens is ~400 KB of text: an observation must fit in an activity result (2 MB) with room to spare.
    .max(100_000)
    .default(DEFAULT_MAX_OBSERVATION_TOKENS)
    .describe(
      'observations are cut to this many estimated tokens; a JSON result is kept as `observationData` only when it fits whole',
    ),
  summarizeObservationsOver: positiveInt(10_000_000)
    .optional()
    .describe('observations over this many estimated tokens are summarised by the model (raw size recorded)'),
  summaryEvery: positiveInt(10_000)
    .optional()
    .describe('every N iterations a summarise call condenses the steps so far into "Conversation so far"'),
  maxStepsPerRun: z
    .number()
    .int()
    .min(2)
    .max(10_000)
    .default(DEFAULT_MAX_STEPS_PER_RUN)
    .describe('iterations one run does before it continues-as-new (sooner when the server suggests it)'),
  carrySteps: z
    .number()
    .int()
    .min(0)
    .max(1000)
    .default(DEFAULT_CARRY_STEPS)
    .describe('latest steps carried into the next run for the model to see'),
});

const conversation = group('makes the run a conversation that takes follow-up messages', {
  idleTimeout: duration
    .optional()
    .describe(
      "after each turn's final answer the run waits this long (a durable timer) for a follow-up message (`send`), then completes; `limits.maxIterations` and `limits.timeoutSeconds` apply per turn, `limits.tokenBudget` and `limits.maxCallsPerTool` to the whole conversation",
    ),
});

const output = group('the shape of the final answer', {
  schema: z
    .record(z.string(), z.unknown())
    .superRefine((value, context) => {
      // Checked here so a bad schema is refused before the run starts, not when the first answer arrives.
      const compiled = compileJsonSchema(value);
      if (typeof compiled === 'string') context.addIssue({ code: 'custom', message: compiled });
    })
    .optional()
    .describe(
      'the final answer must be JSON matching it (`AgentClient.start(..., { outputSchema: zodSchema })` converts zod); an invalid answer goes back to the model; the data is `result.output`',
    ),
  mode: z
    .enum(['simple', 'structured'])
    .default('simple')
    .describe(
      '`structured` adds `result.structured`: answer, reasoning, confidence, tool usage, iterations, summary, error history',
    ),
  signature: z
    .string()
    .superRefine((value, context) => {
      const parsed = parseSignature(value);
      if (typeof parsed === 'string') context.addIssue({ code: 'custom', message: parsed });
    })
    .optional()
    .describe(
      '`"context, question -> answer, sources: list"`: named inputs (pass the query as `{ context, question }`) and required output fields; zod objects work too: `start(inputs, config, { inputSchema, outputSchema })`',
    ),
});

/**
 * The one schema of a run's configuration: what callers write (every group and field optional, unknown fields refused
 * so typos surface early) and, parsed, what the loop reads under the same names, every default applied. The resolved
 * config is itself a valid input: it crosses the wire and histories hold it.
 */
export const agentConfigSchema = z.strictObject({
  model: z.string().min(1).optional().describe('model for this run'),
  modelSettings,
  systemPrompt: z
    .string()
    .default(DEFAULT_SYSTEM_PROMPT)
    .describe('the system prompt (tool catalog and protocol are added to it)'),
  tools: z
    .array(z.string().min(1))
    .max(500)
    .optional()
    .describe('tools offered to the model; an unknown name fails the run at its start'),
  thoughts,
  limits,
  stopWhen: z
    .array(stopConditionSchema)
    .max(100)
    .default([])
    .describe(
      "stops of your own: `{type:'tool_called', tool}` (a call that ran without error), `{type:'observation_contains', text, tool?}`, `{type:'thought_contains', text, outcome?}`; the run ends with reason `custom` unless `outcome` says `success` or `failure`",
    ),
  forceFinalAnswer: z
    .boolean()
    .default(true)
    .describe(
      'after a stop other than `success`/`cancelled`, one tool-less call for the best answer and why it stopped',
    ),
  approvals,
  history,
  conversation,
  critic: z
    .union([
      z.boolean(),
      z
        .object({
          onContinue: z
            .enum(['answer', 'note'])
            .optional()
            .describe("`CONTINUE` (every part answered): 'answer' asks the next call for the final answer, no tools"),
          onRetry: z
            .enum(['reissue', 'note'])
            .optional()
            .describe("`RETRY_WITH_REFINEMENT`: 'reissue' runs the same call again with the refined query"),
          onDifferentTool: z
            .enum(['steer', 'note'])
            .optional()
            .describe("`CALL_DIFFERENT_TOOL`: 'steer' puts the critic's suggestion in the next prompt as feedback"),
          onInsufficientData: z
            .enum(['stop', 'note'])
            .optional()
            .describe("`INSUFFICIENT_DATA`: 'stop' ends the run with `failure`"),
        })
        .strict(),
    ])
    .default(false)
    .describe(
      'after each observation a critic call reads the task and the findings so far and classifies them (`CONTINUE`, `RETRY_WITH_REFINEMENT`, `CALL_DIFFERENT_TOOL`, `INSUFFICIENT_DATA`), recorded in the step and shown to the next thought; `true` acts on each verdict (answer, reissue, steer, stop), an object sets each to `note` (advice only) or its action',
    ),
  output,
  subagents: z
    .record(z.string().regex(/^[a-zA-Z][\w-]{0,63}$/, 'a subagent name is letters, digits, _ or -'), subagentSchema)
    .default({})
    .describe(
      "helpers the model may `delegate` a task to; each runs as a child workflow, with the run's model and model settings unless it sets its own",
    ),
});

/** A run's configuration as callers write it: every group and field optional. */
export type AgentConfig = z.input<typeof agentConfigSchema>;
/** The config with every default applied, under the names people write: what the loop reads. */
export type ResolvedConfig = z.output<typeof agentConfigSchema>;

/** The config's groups: a fork's or replay's changes to one replace only the fields they name. */
export const CONFIG_GROUPS = [
  'modelSettings',
  'thoughts',
  'limits',
  'approvals',
  'history',
  'conversation',
  'output',
] as const;

/** Whether a top-level config field is one of the groups. */
export function isConfigGroup(field: string): field is (typeof CONFIG_GROUPS)[number] {
  return (CONFIG_GROUPS as readonly string[]).includes(field);
}
